package dev.gitopshq.activities.identity;

import java.time.Instant;
import java.util.UUID;

/**
 * A member's membership of a team: {@code source} is {@code manual} (set by an admin) or {@code
 * oidc} (set by the SSO group mapping at sign-in).
 */
public record TeamMemberRow(
    UUID teamId, UUID memberId, String email, String name, String source, Instant createdAt) {}
