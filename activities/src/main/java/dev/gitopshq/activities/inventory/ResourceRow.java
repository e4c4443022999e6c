package dev.gitopshq.activities.inventory;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/** One object of a cluster's inventory. {@code apiGroup} is empty for the core group. */
public record ResourceRow(
    UUID orgId,
    UUID clusterId,
    String uid,
    String apiGroup,
    String apiVersion,
    String kind,
    String namespace,
    String name,
    Map<String, String> labels,
    String status,
    String health,
    Instant createdAt,
    String resourceVersion,
    String snapshotId,
    Instant updatedAt) {}
