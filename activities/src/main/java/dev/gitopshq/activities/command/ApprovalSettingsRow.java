package dev.gitopshq.activities.command;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** The approval-policy settings bound to a cluster (OPA's {@code input.settings}). */
public record ApprovalSettingsRow(
    UUID orgId,
    UUID clusterId,
    List<String> requireApproval,
    List<String> autoApprove,
    int requiredApprovers,
    List<String> approverRoles,
    List<String> approverTeams,
    boolean breakGlassAllowed,
    List<String> breakGlassRoles,
    String updatedBy,
    Instant updatedAt) {}
