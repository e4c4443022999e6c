package dev.gitopshq.activities.release;

import java.time.Instant;
import java.util.UUID;

/** One direct apply of a cluster as its Direct deploy tab lists it. */
public record DirectApplySummaryRow(
    String id,
    UUID deploymentId,
    UUID projectId,
    String project,
    String environment,
    String commit,
    String status,
    String error,
    int objects,
    int applied,
    int pruned,
    int failed,
    Instant createdAt,
    Instant finishedAt) {}
