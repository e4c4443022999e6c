package dev.gitopshq.activities.release;

import java.time.Instant;
import java.util.UUID;

/** An object direct applies placed on a cluster, with the project environment it belongs to. */
public record DirectClusterObjectRow(
    UUID projectId,
    String project,
    String environment,
    String tenant,
    String apiVersion,
    String kind,
    String namespace,
    String name,
    String applyId,
    Instant appliedAt) {}
