package dev.gitopshq.activities.release;

import java.time.Instant;
import java.util.UUID;

/**
 * A tenant-environment of a project delivered to a cluster, with its last deployment, how the
 * cluster is delivered to ({@code argocd}, {@code flux} or {@code direct}) and, in direct mode, the
 * newest direct apply of that project environment on the cluster (null before the first).
 */
public record ClusterBindingRow(
    UUID projectId,
    String project,
    UUID tenantId,
    String tenant,
    UUID environmentId,
    String environment,
    String deployedCommit,
    Integer deployedReleaseNumber,
    Instant deployedAt,
    String deliveryMode,
    String directStatus,
    String directCommit,
    String directError) {}
