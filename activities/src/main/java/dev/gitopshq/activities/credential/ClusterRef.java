package dev.gitopshq.activities.credential;

import java.util.UUID;

/** A cluster of an organization. */
public record ClusterRef(UUID orgId, UUID clusterId) {}
