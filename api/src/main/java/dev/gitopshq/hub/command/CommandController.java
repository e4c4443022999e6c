package dev.gitopshq.hub.command;

import dev.gitopshq.activities.command.CommandEventRow;
import dev.gitopshq.activities.command.CommandQuery;
import dev.gitopshq.activities.command.CommandRow;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.agent.v1.CommandTypes;
import dev.gitopshq.hub.approval.ApprovalViews;
import dev.gitopshq.hub.approval.ApprovalViews.ApprovalView;
import dev.gitopshq.hub.approval.ApprovalViews.EventView;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import dev.gitopshq.hub.web.TimeCursor;
import dev.gitopshq.workflows.command.CommandStatus;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import org.springframework.format.annotation.DateTimeFormat;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Commands: request, list, inspect with the full timeline, cancel. */
@RestController
public class CommandController {
  private static final int MAX_LIMIT = 200;

  /** The statuses a filter may name: the workflow's {@link CommandStatus}. */
  private static final Set<String> STATUSES =
      Arrays.stream(CommandStatus.values()).map(Enum::name).collect(Collectors.toUnmodifiableSet());

  private final CommandService commands;

  public CommandController(CommandService commands) {
    this.commands = commands;
  }

  record Accepted(String id, String status) {}

  record Target(String namespace, String kind, String name) {}

  record RequesterView(String id, String type, String name) {}

  /** A policy decision: which policy, its version and the SHA-256 of that version's text. */
  record DecisionView(
      String policy, Integer version, String sha256, String outcome, List<String> reasons) {}

  /** A command in a list. */
  record CommandSummary(
      String id,
      String clusterId,
      String type,
      Target target,
      Map<String, String> params,
      String reason,
      RequesterView requester,
      boolean breakGlass,
      String status,
      String statusDetail,
      String output,
      String error,
      Instant createdAt,
      Instant finishedAt) {}

  /** A command with everything an auditor asks for. */
  record CommandDetail(
      String id,
      String clusterId,
      String type,
      Target target,
      Map<String, String> params,
      String reason,
      RequesterView requester,
      boolean breakGlass,
      String breakGlassJustification,
      String status,
      String statusDetail,
      DecisionView decision,
      List<ApprovalView> approvals,
      String output,
      String error,
      List<EventView> timeline,
      Instant createdAt,
      Instant updatedAt,
      Instant finishedAt) {}

  record Page(List<CommandSummary> items, String nextCursor) {}

  @PostMapping("/api/v2/clusters/{clusterId}/commands")
  @ApiResponse(
      responseCode = "202",
      description = "The command was created",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = Accepted.class)))
  @ApiResponse(
      responseCode = "200",
      description = "The Idempotency-Key named an existing, identical command",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = Accepted.class)))
  ResponseEntity<Accepted> create(
      @PathVariable UUID clusterId,
      @RequestBody CommandRequests.Create body,
      @RequestHeader(name = "Idempotency-Key", required = false) String idempotencyKey) {
    HubPrincipal caller = Authz.require(Permission.COMMANDS_CREATE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    if (idempotencyKey != null && (idempotencyKey.isBlank() || idempotencyKey.length() > 128)) {
      throw ApiException.invalid("Idempotency-Key", "must be 1 to 128 characters");
    }
    Map<String, String> params = body.validate();
    CommandService.Created c = commands.create(caller, clusterId, body, params, idempotencyKey);
    return ResponseEntity.status(c.existed() ? HttpStatus.OK : HttpStatus.ACCEPTED)
        .body(new Accepted(c.command().id().toString(), c.command().status()));
  }

  @GetMapping("/api/v2/clusters/{clusterId}/commands")
  Page list(
      @PathVariable UUID clusterId,
      @RequestParam(required = false) String type,
      @RequestParam(required = false) String status,
      @RequestParam(required = false) @DateTimeFormat(iso = DateTimeFormat.ISO.DATE_TIME)
          Instant from,
      @RequestParam(required = false) @DateTimeFormat(iso = DateTimeFormat.ISO.DATE_TIME)
          Instant to,
      @RequestParam(required = false) String cursor,
      @RequestParam(defaultValue = "50") int limit) {
    HubPrincipal caller = Authz.require(Permission.COMMANDS_READ);
    Checks.time("from", from);
    Checks.time("to", to);
    if (type != null && !CommandTypes.isKnown(type)) {
      throw ApiException.invalid("type", "must be one of " + String.join(", ", CommandTypes.ALL));
    }
    if (status != null && !STATUSES.contains(status)) {
      throw ApiException.invalid("status", "must be one of " + new TreeSet<>(STATUSES));
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      throw ApiException.invalid("limit", "must be between 1 and " + MAX_LIMIT);
    }
    Instant afterAt = null;
    UUID afterId = null;
    if (cursor != null) {
      try {
        TimeCursor after = TimeCursor.parse(cursor);
        afterAt = after.at();
        afterId = after.id();
      } catch (IllegalArgumentException e) {
        throw ApiException.invalid("cursor", e.getMessage());
      }
    }
    List<CommandRow> rows =
        commands.list(
            caller.orgId(),
            clusterId,
            new CommandQuery(type, status, from, to, afterAt, afterId, limit));
    String next = null;
    if (rows.size() == limit) {
      CommandRow last = rows.getLast();
      next = new TimeCursor(last.createdAt(), last.id()).encode();
    }
    return new Page(rows.stream().map(CommandController::summary).toList(), next);
  }

  @GetMapping("/api/v2/commands/{id}")
  CommandDetail get(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.COMMANDS_READ);
    CommandRow c = commands.get(caller.orgId(), id);
    List<EventView> timeline =
        commands.timeline(caller.orgId(), id).stream().map(CommandController::event).toList();
    List<ApprovalView> approvals =
        commands.approvals(caller.orgId(), id).entrySet().stream()
            .map(e -> ApprovalViews.approval(e.getKey(), e.getValue()))
            .toList();
    return new CommandDetail(
        c.id().toString(),
        c.clusterId().toString(),
        c.type(),
        new Target(c.targetNamespace(), c.targetKind(), c.targetName()),
        c.params(),
        c.reason(),
        new RequesterView(c.requesterId(), c.requesterType(), c.requesterName()),
        c.breakGlass(),
        c.breakGlassJustification(),
        c.status(),
        c.statusDetail(),
        c.decisionOutcome() == null
            ? null
            : new DecisionView(
                c.policyName(),
                c.policyVersion(),
                c.policySha256(),
                c.decisionOutcome(),
                c.decisionReasons()),
        approvals,
        c.output(),
        c.error(),
        timeline,
        c.createdAt(),
        c.updatedAt(),
        c.finishedAt());
  }

  @PostMapping("/api/v2/commands/{id}/cancel")
  @ApiResponse(
      responseCode = "202",
      description = "The command is being cancelled",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = Accepted.class)))
  ResponseEntity<Accepted> cancel(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.COMMANDS_CREATE);
    CommandRow c = commands.cancel(caller, id);
    return ResponseEntity.status(HttpStatus.ACCEPTED)
        .body(new Accepted(c.id().toString(), c.status()));
  }

  static CommandSummary summary(CommandRow c) {
    return new CommandSummary(
        c.id().toString(),
        c.clusterId().toString(),
        c.type(),
        new Target(c.targetNamespace(), c.targetKind(), c.targetName()),
        c.params(),
        c.reason(),
        new RequesterView(c.requesterId(), c.requesterType(), c.requesterName()),
        c.breakGlass(),
        c.status(),
        c.statusDetail(),
        c.output(),
        c.error(),
        c.createdAt(),
        c.finishedAt());
  }

  static EventView event(CommandEventRow e) {
    return new EventView(e.seq(), e.at(), e.status(), e.actor(), e.detail());
  }
}
