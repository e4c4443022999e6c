package dev.gitopshq.activities.store;

import java.time.Instant;
import java.util.UUID;

/** A person in an organization, with a role (owner, admin, member, viewer). */
public record MemberRow(
    UUID id, UUID orgId, String email, String name, String role, Instant createdAt) {}
