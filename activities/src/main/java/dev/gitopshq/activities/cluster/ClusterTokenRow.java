package dev.gitopshq.activities.cluster;

import java.time.Instant;
import java.util.UUID;

/**
 * A registration or agent token of a cluster: its hash and lifecycle, never its value.
 *
 * @param status active, pending, consumed, expired, superseded or revoked
 */
public record ClusterTokenRow(
    UUID id,
    UUID orgId,
    UUID clusterId,
    String kind,
    String tokenHash,
    String status,
    Instant createdAt,
    Instant expiresAt,
    Instant consumedAt,
    Instant revokedAt) {}
