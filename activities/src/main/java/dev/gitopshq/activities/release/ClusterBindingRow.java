package dev.gitopshq.activities.release;

import java.time.Instant;
import java.util.UUID;

/** A tenant-environment of a project delivered to a cluster, with its last deployment. */
public record ClusterBindingRow(
    UUID projectId,
    String project,
    UUID tenantId,
    String tenant,
    UUID environmentId,
    String environment,
    String deployedCommit,
    Integer deployedReleaseNumber,
    Instant deployedAt) {}
