package dev.gitopshq.activities.git;

import java.time.Instant;
import java.util.UUID;

/**
 * A project's deploy token: read-only access to its hosted repository over smart HTTP. Only the
 * token's SHA-256 is stored.
 *
 * @param createdBy the id of the member or service account that issued it
 * @param expiresAt null: never expires
 * @param lastUsedAt when it last authenticated a Git request (kept to the minute)
 */
public record DeployTokenRow(
    UUID id,
    UUID orgId,
    UUID projectId,
    String name,
    String tokenHash,
    String createdBy,
    Instant createdAt,
    Instant expiresAt,
    Instant revokedAt,
    Instant lastUsedAt) {}
