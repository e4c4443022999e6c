package dev.gitopshq.activities.command;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A command as stored (the dispatch task token is read separately and never shown). */
public record CommandRow(
    UUID id,
    UUID orgId,
    UUID clusterId,
    String type,
    String targetNamespace,
    String targetKind,
    String targetName,
    Map<String, String> params,
    String reason,
    String requesterId,
    String requesterType,
    String requesterName,
    boolean breakGlass,
    String breakGlassJustification,
    String status,
    String statusDetail,
    String policyName,
    Integer policyVersion,
    String policySha256,
    String decisionOutcome,
    List<String> decisionReasons,
    String output,
    String error,
    Instant dispatchDeadline,
    Instant dispatchedAt,
    Instant createdAt,
    Instant updatedAt,
    Instant finishedAt) {}
