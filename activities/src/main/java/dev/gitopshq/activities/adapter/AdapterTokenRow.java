package dev.gitopshq.activities.adapter;

import java.util.UUID;

/**
 * The deploy token a cluster's adapter reads a project's repository with, and its Secret's name.
 */
public record AdapterTokenRow(
    UUID orgId, UUID clusterId, UUID projectId, String adapter, UUID tokenId, String secret) {}
