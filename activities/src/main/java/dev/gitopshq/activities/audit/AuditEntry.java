package dev.gitopshq.activities.audit;

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
    String hash) {}
