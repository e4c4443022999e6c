package dev.gitopshq.activities.command;

import dev.gitopshq.workflows.command.CommandSpec;
import dev.gitopshq.workflows.governance.Requester;
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
    Instant finishedAt) {

  /**
   * A command as its request stores it: pending, with no decision, dispatch, result or end yet.
   * Everything comes from the validated request the workflow is started with.
   */
  public static CommandRow requested(CommandSpec spec, Instant now) {
    Requester r = spec.requester();
    return new CommandRow(
        UUID.fromString(spec.commandId()),
        UUID.fromString(spec.orgId()),
        UUID.fromString(spec.clusterId()),
        spec.type(),
        spec.target().namespace(),
        spec.target().kind(),
        spec.target().name(),
        spec.params(),
        spec.reason(),
        r.id(),
        r.type(),
        r.name(),
        spec.breakGlass(),
        spec.breakGlassJustification(),
        "pending",
        "",
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        now,
        now,
        null);
  }
}
