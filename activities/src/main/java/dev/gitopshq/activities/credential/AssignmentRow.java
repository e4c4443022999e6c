package dev.gitopshq.activities.credential;

import java.time.Instant;
import java.util.UUID;

/**
 * One target namespace of a credential on a cluster, with its sync status ({@code synced}, {@code
 * pending} or {@code failed}). The credential's name, type and current version come along for the
 * cluster's Credentials tab. {@code policyDenied}: the organization's credentials policy denied the
 * target (then it is failed and {@code error} holds the policy's reasons); {@code decisionId}: the
 * sync round whose policy decision covers it.
 */
public record AssignmentRow(
    UUID orgId,
    UUID credentialId,
    UUID clusterId,
    String namespace,
    String status,
    Long syncedVersion,
    Instant lastSyncedAt,
    String error,
    Instant assignedAt,
    Instant updatedAt,
    String credentialName,
    String credentialType,
    long credentialVersion,
    String clusterName,
    boolean policyDenied,
    UUID decisionId) {}
