package dev.gitopshq.activities.store;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** An API token: its hash, never its value. Exactly one of memberId and serviceAccountId is set. */
public record ApiTokenRow(
    UUID id,
    UUID orgId,
    UUID memberId,
    UUID serviceAccountId,
    String name,
    String tokenHash,
    List<String> scopes,
    UUID createdBy,
    Instant createdAt,
    Instant expiresAt,
    Instant revokedAt) {}
