package dev.gitopshq.activities.audit;

import java.time.Instant;

/**
 * Filters for reading the audit log; null means "any". Results come newest first, {@code limit} at
 * a time, continuing below {@code beforeSeq}.
 */
public record AuditQuery(
    String actor,
    String action,
    String target,
    Instant from,
    Instant to,
    Long beforeSeq,
    int limit) {}
