package dev.gitopshq.hub.command;

import dev.gitopshq.activities.approval.ApprovalMapper;
import dev.gitopshq.activities.approval.ApprovalRow;
import dev.gitopshq.activities.approval.ApprovalVoteRow;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.command.CommandEventRow;
import dev.gitopshq.activities.command.CommandMapper;
import dev.gitopshq.activities.command.CommandQuery;
import dev.gitopshq.activities.command.CommandRow;
import dev.gitopshq.activities.identity.MemberMapper;
import dev.gitopshq.activities.identity.MemberRow;
import dev.gitopshq.hub.cluster.ClusterAcceptance;
import dev.gitopshq.hub.member.PeopleService;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiError;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.workflows.TaskQueues;
import dev.gitopshq.workflows.command.CommandRequest;
import dev.gitopshq.workflows.command.CommandSpec;
import dev.gitopshq.workflows.command.CommandTarget;
import dev.gitopshq.workflows.command.CommandTimeouts;
import dev.gitopshq.workflows.command.CommandWorkflow;
import dev.gitopshq.workflows.governance.Requester;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Creates commands (row, audit entry and workflow in one transaction) and reads them with their
 * timelines and approvals.
 */
@Service
public class CommandService {
  private final CommandMapper commands;
  private final ClusterMapper clusters;
  private final MemberMapper members;
  private final PeopleService people;
  private final ApprovalMapper approvals;
  private final AuditLog audit;
  private final WorkflowClient temporal;
  private final CommandProperties props;
  private final Clock clock;

  public CommandService(
      CommandMapper commands,
      ClusterMapper clusters,
      MemberMapper members,
      PeopleService people,
      ApprovalMapper approvals,
      AuditLog audit,
      WorkflowClient temporal,
      CommandProperties props,
      Clock clock) {
    this.commands = commands;
    this.clusters = clusters;
    this.members = members;
    this.people = people;
    this.approvals = approvals;
    this.audit = audit;
    this.temporal = temporal;
    this.props = props;
    this.clock = clock;
  }

  /** Whether an existing command is what {@code req} asks for: the same request sent again. */
  static boolean sameRequest(CommandRow c, CommandRequests.Create req, Map<String, String> params) {
    String justification =
        req.breakGlass() == null ? null : req.breakGlass().justification().trim();
    return c.type().equals(req.type())
        && c.targetNamespace().equals(req.target().namespace())
        && c.targetKind().equals(req.target().kind())
        && c.targetName().equals(req.target().name())
        && c.params().equals(params)
        && c.reason().equals(req.reason() == null ? "" : req.reason())
        && Objects.equals(c.breakGlassJustification(), justification);
  }

  /** A created (or, for a repeated idempotency key, the existing) command. */
  public record Created(CommandRow command, boolean existed) {}

  /**
   * Creates a command. With an idempotency key the command id is derived from it, so a client that
   * retries the same request gets the same command back, never a second one.
   */
  @Transactional
  public Created create(
      HubPrincipal caller,
      UUID clusterId,
      CommandRequests.Create req,
      Map<String, String> params,
      String idempotencyKey) {
    ClusterRow cluster =
        clusters
            .findById(caller.orgId(), clusterId)
            .orElseThrow(() -> ApiException.notFound("cluster " + clusterId));
    ClusterAcceptance.requireAccepted(cluster, "commands run on it");
    UUID id =
        idempotencyKey == null
            ? UUID.randomUUID()
            : UUID.nameUUIDFromBytes(
                (caller.orgId() + "/" + clusterId + "/" + caller.id() + "/" + idempotencyKey)
                    .getBytes(StandardCharsets.UTF_8));
    Optional<CommandRow> existing = commands.findById(caller.orgId(), id);
    if (existing.isPresent()) {
      if (!sameRequest(existing.get(), req, params)) {
        // The key names another request: answering with it would hide that this one never ran.
        throw new ApiException(
            new ApiError(
                422,
                "idempotency_key_reused",
                "this Idempotency-Key was already used for a different command ("
                    + existing.get().id()
                    + "); use a new key for a new request",
                null));
      }
      return new Created(existing.get(), true);
    }

    Instant now = clock.instant();
    String justification =
        req.breakGlass() == null ? null : req.breakGlass().justification().trim();
    String reason = req.reason() == null ? "" : req.reason();
    List<String> teams =
        caller.isMember()
            ? members
                .findById(caller.orgId(), caller.memberId())
                .map(MemberRow::teams)
                .orElse(List.of())
            : List.of();
    CommandSpec spec =
        new CommandSpec(
            caller.orgId().toString(),
            id.toString(),
            clusterId.toString(),
            cluster.name(),
            req.type(),
            new CommandTarget(req.target().namespace(), req.target().kind(), req.target().name()),
            params,
            reason,
            new Requester(
                caller.id(),
                caller.isMember() ? "member" : "service_account",
                caller.name(),
                caller.role() == null ? "" : caller.role().wireName(),
                teams,
                people.behind(caller)),
            justification);
    CommandRow row = CommandRow.requested(spec, now);
    commands.insert(row);
    // Held until this transaction ends: the workflow's first step waits for it (see lockCreation).
    commands.lockCreation(id);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("clusterId", clusterId.toString());
    d.put("type", req.type());
    d.put(
        "target", req.target().namespace() + "/" + req.target().kind() + "/" + req.target().name());
    d.put("params", params);
    d.put("reason", row.reason());
    d.put("breakGlass", justification != null);
    if (justification != null) {
      d.put("justification", justification);
    }
    audit.record(caller.orgId(), caller.actor(), "command.requested", "command", id.toString(), d);

    CommandWorkflow wf =
        temporal.newWorkflowStub(
            CommandWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.HUB)
                .setWorkflowId(id.toString())
                // Eager start: Temporal hands the first workflow task back with the start, to this
                // replica's worker, instead of through its task queue.
                .setDisableEagerExecution(false)
                .build());
    // Inside the transaction: if Temporal refuses, the row and audit entry roll back with it.
    WorkflowClient.start(
        wf::run,
        new CommandRequest(
            spec,
            new CommandTimeouts(
                props.approvalTimeout().toSeconds(),
                props.agentWait().toSeconds(),
                props.executionTimeout().toSeconds())));
    return new Created(row, false);
  }

  @Transactional(readOnly = true)
  public CommandRow get(UUID orgId, UUID id) {
    return commands.findById(orgId, id).orElseThrow(() -> ApiException.notFound("command " + id));
  }

  @Transactional(readOnly = true)
  public List<CommandRow> list(UUID orgId, UUID clusterId, CommandQuery q) {
    if (clusters.findById(orgId, clusterId).isEmpty()) {
      throw ApiException.notFound("cluster " + clusterId);
    }
    return commands.list(orgId, clusterId, q);
  }

  @Transactional(readOnly = true)
  public List<CommandEventRow> timeline(UUID orgId, UUID id) {
    return commands.events(orgId, id);
  }

  /** The approvals (and break-glass reviews) of a command, each with its votes. */
  @Transactional(readOnly = true)
  public Map<ApprovalRow, List<ApprovalVoteRow>> approvals(UUID orgId, UUID commandId) {
    Map<ApprovalRow, List<ApprovalVoteRow>> out = new LinkedHashMap<>();
    for (ApprovalRow a : approvals.forSubject(orgId, commandId)) {
      out.put(a, approvals.votes(orgId, a.id()));
    }
    return out;
  }

  /** Asks the workflow to cancel; only the requester may, and only before execution. */
  public CommandRow cancel(HubPrincipal caller, UUID id) {
    CommandRow c = get(caller.orgId(), id);
    if (!c.requesterId().equals(caller.id())) {
      throw ApiException.forbidden("only the requester can cancel a command");
    }
    if (!c.status().equals("pending") && !c.status().equals("pending_approval")) {
      throw ApiException.conflict("a command that is " + c.status() + " cannot be cancelled");
    }
    temporal.newWorkflowStub(CommandWorkflow.class, id.toString()).cancel(caller.name());
    return c;
  }
}
