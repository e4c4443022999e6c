package dev.gitopshq.activities.identity;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A person in an organization, with a role (owner, admin, member, viewer) and the teams they belong
 * to (approval policies can name teams as approvers).
 */
public record MemberRow(
    UUID id,
    UUID orgId,
    String email,
    String name,
    String role,
    List<String> teams,
    Instant createdAt) {}
