package dev.gitopshq.activities.adapter;

import java.time.Instant;
import java.util.UUID;

/**
 * What a cluster's agent last reported for one binding it wired.
 *
 * @param objects JSON array of {@code {apiVersion, kind, namespace, name}}
 */
public record AdapterWiringRow(
    UUID orgId,
    UUID clusterId,
    UUID projectId,
    String project,
    String environment,
    String tenant,
    String adapter,
    String outcome,
    String message,
    String objects,
    Instant updatedAt) {}
