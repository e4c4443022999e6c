package dev.gitopshq.activities.org;

import java.time.Instant;
import java.util.UUID;

/** An organization: the top-level isolation boundary. */
public record OrgRow(UUID id, String slug, String name, String plan, Instant createdAt) {}
