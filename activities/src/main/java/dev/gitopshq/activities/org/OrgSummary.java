package dev.gitopshq.activities.org;

import java.time.Instant;
import java.util.UUID;

/** An organization as the instance's admins see it, with its size. */
public record OrgSummary(
    UUID id,
    String slug,
    String name,
    String plan,
    boolean operator,
    Instant createdAt,
    String createdBy,
    int members,
    int clusters) {}
