package dev.gitopshq.activities.audit;

import dev.gitopshq.evidence.AuditChain;
import java.time.Instant;
import java.util.UUID;

/** One audit log entry as stored. {@code details} is canonical JSON (sorted keys). */
public record AuditEntry(
    long seq,
    UUID orgId,
    Instant at,
    String actorType,
    String actorId,
    String actorName,
    String action,
    String targetType,
    String targetId,
    String details,
    String prevHash,
    String hash) {

  /** The entry as its hash covers it (the chain's own record, for hashing and evidence). */
  public AuditChain.Entry asHashed() {
    return new AuditChain.Entry(
        seq,
        orgId.toString(),
        at.toString(),
        actorType,
        actorId,
        actorName,
        action,
        targetType,
        targetId,
        details,
        prevHash,
        hash);
  }
}
