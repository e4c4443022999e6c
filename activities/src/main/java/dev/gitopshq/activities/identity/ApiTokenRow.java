package dev.gitopshq.activities.identity;

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
    Instant revokedAt,
    Instant lastUsedAt,
    String revokedBy) {

  /** A token as issued: not used, not revoked. */
  public static ApiTokenRow issued(
      UUID id,
      UUID orgId,
      UUID memberId,
      UUID serviceAccountId,
      String name,
      String tokenHash,
      List<String> scopes,
      UUID createdBy,
      Instant createdAt,
      Instant expiresAt) {
    return new ApiTokenRow(
        id,
        orgId,
        memberId,
        serviceAccountId,
        name,
        tokenHash,
        scopes,
        createdBy,
        createdAt,
        expiresAt,
        null,
        null,
        null);
  }

  /** {@code active}, {@code expired} or {@code revoked}, at {@code now}. */
  public String status(Instant now) {
    if (revokedAt != null) {
      return "revoked";
    }
    return expiresAt != null && !expiresAt.isAfter(now) ? "expired" : "active";
  }
}
