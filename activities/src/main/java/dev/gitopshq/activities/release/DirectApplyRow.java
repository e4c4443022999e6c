package dev.gitopshq.activities.release;

import java.time.Instant;
import java.util.UUID;

/**
 * One direct apply (table {@code direct_applies}).
 *
 * @param results JSON array of the agent's per-object results ({@link DirectApplies#results})
 */
public record DirectApplyRow(
    String id,
    UUID orgId,
    UUID deploymentId,
    UUID projectId,
    UUID environmentId,
    String environment,
    UUID clusterId,
    String commit,
    String status,
    String error,
    String results,
    Instant dispatchDeadline,
    int healthTimeoutS,
    Instant dispatchedAt,
    Instant createdAt,
    Instant finishedAt,
    String cluster,
    String project) {}
