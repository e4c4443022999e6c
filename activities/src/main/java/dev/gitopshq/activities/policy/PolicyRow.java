package dev.gitopshq.activities.policy;

import java.time.Instant;
import java.util.UUID;

/**
 * One stored version of a policy. Versions are immutable; at most one per name is active.
 *
 * @param rego the text as the author wrote it, without the line the hub appends when publishing
 * @param createdBy the member or service-account id that published it, or {@code system} for a
 *     shipped default
 */
public record PolicyRow(
    UUID orgId,
    String name,
    int version,
    String rego,
    String createdBy,
    Instant createdAt,
    boolean active) {}
