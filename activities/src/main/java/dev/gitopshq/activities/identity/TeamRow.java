package dev.gitopshq.activities.identity;

import java.time.Instant;
import java.util.UUID;

/** A team of an organization: members belong to it, and grants give it a role somewhere. */
public record TeamRow(UUID id, UUID orgId, String name, String description, Instant createdAt) {}
