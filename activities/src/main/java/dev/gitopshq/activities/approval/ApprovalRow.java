package dev.gitopshq.activities.approval;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** An inbox item: one approval workflow. */
public record ApprovalRow(
    String id,
    UUID orgId,
    String kind,
    UUID subjectId,
    UUID clusterId,
    String requesterId,
    List<String> requesterBehind,
    int requiredApprovers,
    List<String> approverRoles,
    List<String> approverTeams,
    String summary,
    String status,
    Instant createdAt,
    Instant expiresAt,
    Instant closedAt) {}
