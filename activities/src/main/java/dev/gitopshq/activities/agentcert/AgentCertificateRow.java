package dev.gitopshq.activities.agentcert;

import java.time.Instant;
import java.util.UUID;

/**
 * A client certificate the hub issued to a cluster's agent.
 *
 * @param serial the serial number in lowercase hex, as a TLS peer presents it
 * @param revokedBy who revoked it (an actor's name), null while it is not revoked
 */
public record AgentCertificateRow(
    UUID id,
    UUID orgId,
    UUID clusterId,
    String serial,
    Instant notBefore,
    Instant notAfter,
    Instant createdAt,
    Instant revokedAt,
    String revokedBy) {

  /** valid, expired or revoked at {@code now}. */
  public String status(Instant now) {
    if (revokedAt != null) {
      return "revoked";
    }
    return notAfter.isAfter(now) ? "valid" : "expired";
  }
}
