package dev.gitopshq.hub.gateway;

import com.google.protobuf.Timestamp;
import dev.gitopshq.activities.command.CommandMapper;
import dev.gitopshq.activities.command.CommandRow;
import dev.gitopshq.agent.v1.CommandResult;
import dev.gitopshq.agent.v1.CommandTypes;
import dev.gitopshq.agent.v1.ExecuteCommand;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.Target;
import dev.gitopshq.workflows.command.CommandWorkflow;
import dev.gitopshq.workflows.command.ExecutionResult;
import io.grpc.Context;
import io.temporal.client.ActivityCanceledException;
import io.temporal.client.ActivityCompletionClient;
import io.temporal.client.ActivityNotExistsException;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves parked commands to the agents this replica holds, and hands an agent's report back to the
 * command's workflow: as its {@code reported} signal, or by completing the execute activity that
 * parked it (workflows started before version 2). Commands wait in PostgreSQL, so whichever replica
 * holds the agent's stream, now or after a reconnect, can deliver them, and whichever replica
 * receives the result can report it. A report is recorded before it is handed over, and the
 * command's task token is cleared only once the workflow has it: a report that Temporal could not
 * take (an outage, or the hub died in between) is handed over again by the sweep.
 */
final class CommandDispatcher {
  private static final Logger log = LoggerFactory.getLogger(CommandDispatcher.class);

  /** How long handing one report to Temporal may take before the sweep takes it over. */
  static final Duration HAND_OVER_DEADLINE = Duration.ofSeconds(5);

  /** Fires the gRPC deadlines of hand-overs (one daemon thread, idle but for them). */
  private final ScheduledExecutorService deadlines =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "command-report-deadlines");
            t.setDaemon(true);
            return t;
          });

  private final CommandMapper commands;
  private final AgentConnections connections;
  private final ActivityCompletionClient completions;
  private final WorkflowClient temporal;
  private final Clock clock;

  /**
   * Loads the desired manifest a resolve-drift command re-applies (from its drift finding), when
   * the command is sent: it never travels through the workflow's history.
   */
  private volatile Function<CommandRow, Optional<String>> manifests = c -> Optional.empty();

  void manifests(Function<CommandRow, Optional<String>> loader) {
    this.manifests = loader;
  }

  CommandDispatcher(
      CommandMapper commands, AgentConnections connections, WorkflowClient temporal, Clock clock) {
    this.commands = commands;
    this.connections = connections;
    this.completions = temporal.newActivityCompletionClient();
    this.temporal = temporal;
    this.clock = clock;
  }

  /** Sends every parked command of the session's cluster (after Hello, or when one is queued). */
  void sendQueued(AgentSession session) {
    for (CommandRow c : commands.queued(session.orgId, session.clusterId)) {
      send(session, c);
    }
  }

  /**
   * Parked commands of one cluster no stream has carried yet (this replica parked one, or another
   * replica said it did). Each is claimed before it is sent, so the local hand-over and the
   * notification that races it send it once.
   */
  void sendUnsent(UUID orgId, UUID clusterId) {
    for (CommandRow c : commands.unsent(orgId, List.of(clusterId))) {
      connections
          .get(c.clusterId())
          .filter(s -> s.orgId.equals(orgId))
          .ifPresent(s -> sendOnce(s, c));
    }
  }

  /**
   * The periodic sweep, for the agents held here: reports not yet handed to their workflows, and
   * parked commands no stream has carried yet.
   */
  void sweep() {
    Map<UUID, List<UUID>> byOrg = new HashMap<>();
    for (AgentSession s : connections.sessions()) {
      if (s.connectedAt() != null) {
        byOrg.computeIfAbsent(s.orgId, k -> new ArrayList<>()).add(s.clusterId);
      }
    }
    byOrg.forEach(
        (org, clusters) -> {
          handOverPending(org, clusters);
          for (CommandRow c : commands.unsent(org, clusters)) {
            connections.get(c.clusterId()).ifPresent(s -> sendOnce(s, c));
          }
        });
  }

  /** Sends a command no stream carried yet, unless another path claimed it first. */
  private void sendOnce(AgentSession session, CommandRow c) {
    if (expired(session, c)) {
      return;
    }
    if (commands.claimSend(session.orgId, c.id(), clock.instant()) == 1) {
      transmit(session, c);
    }
  }

  /** Sends (again, after a reconnect: the agent answers a repeat from memory). */
  private void send(AgentSession session, CommandRow c) {
    if (expired(session, c)) {
      return;
    }
    commands.markSent(session.orgId, c.id(), clock.instant());
    transmit(session, c);
  }

  /** Past its deadline: reported as not executed, and not sent. */
  private boolean expired(AgentSession session, CommandRow c) {
    Instant now = clock.instant();
    if (c.dispatchDeadline() != null && now.isAfter(c.dispatchDeadline())) {
      complete(
          session.orgId,
          session.clusterId,
          c.id(),
          new ExecutionResult(
              false,
              "",
              "the deadline passed before the agent could take the command; nothing was executed"));
      return true;
    }
    return false;
  }

  private void transmit(AgentSession session, CommandRow c) {
    ExecuteCommand.Builder cmd =
        ExecuteCommand.newBuilder()
            .setCommandId(c.id().toString())
            .setType(c.type())
            .setTarget(
                Target.newBuilder()
                    .setNamespace(c.targetNamespace())
                    .setKind(c.targetKind())
                    .setName(c.targetName()))
            .putAllParams(c.params())
            .setRequestedBy(c.requesterName())
            .setBreakGlass(c.breakGlass());
    if (CommandTypes.RESOLVE_DRIFT.equals(c.type())) {
      Optional<String> manifest = manifests.apply(c);
      if (manifest.isEmpty()) {
        complete(
            session.orgId,
            session.clusterId,
            c.id(),
            new ExecutionResult(
                false, "", "the drift finding is gone; nothing was sent to the agent"));
        return;
      }
      cmd.setDesiredManifest(manifest.get());
    }
    if (c.dispatchDeadline() != null) {
      cmd.setDeadline(
          Timestamp.newBuilder()
              .setSeconds(c.dispatchDeadline().getEpochSecond())
              .setNanos(c.dispatchDeadline().getNano()));
    }
    session.send(
        HubMessage.newBuilder().setCorrelationId(c.id().toString()).setExecuteCommand(cmd).build());
    log.info(
        "command {} ({} {}/{}) sent to cluster {}",
        c.id(),
        c.type(),
        c.targetNamespace(),
        c.targetName(),
        session.clusterId);
  }

  /** An agent reported; hand it to the workflow (once, whichever replica gets it). */
  void onResult(AgentSession session, CommandResult result) {
    UUID id;
    try {
      id = UUID.fromString(result.getCommandId());
    } catch (IllegalArgumentException e) {
      log.warn("cluster {} reported a result for a malformed command id", session.clusterId);
      return;
    }
    ExecutionResult r =
        switch (result.getOutcome()) {
          case SUCCEEDED -> new ExecutionResult(true, result.getOutput(), "");
          case EXPIRED ->
              new ExecutionResult(
                  false,
                  result.getOutput(),
                  nonEmpty(result.getError(), "the deadline had passed; the agent did not run it"));
          case REFUSED ->
              new ExecutionResult(
                  false,
                  result.getOutput(),
                  nonEmpty(result.getError(), "the agent refused the command"));
          default ->
              new ExecutionResult(
                  false,
                  result.getOutput(),
                  nonEmpty(result.getError(), "the agent reported a failure"));
        };
    log.info("cluster {} reported command {}: {}", session.clusterId, id, result.getOutcome());
    complete(session.orgId, session.clusterId, id, r);
  }

  private void complete(UUID orgId, UUID clusterId, UUID commandId, ExecutionResult r) {
    byte[] token =
        commands
            .recordReport(
                orgId,
                clusterId,
                commandId,
                r.output(),
                r.success() ? null : r.error(),
                clock.instant())
            .orElse(null);
    if (token == null) {
      // Already reported (a repeat), or not a command of this cluster.
      return;
    }
    handOver(orgId, commandId, token, r);
  }

  /**
   * Hands a recorded report to the command's workflow, waiting at most {@link #HAND_OVER_DEADLINE}
   * for Temporal so that an outage never holds the agent's stream.
   *
   * @return false when Temporal could not be reached: the report stays recorded with its token, and
   *     the sweep hands it over again
   */
  private boolean handOver(UUID orgId, UUID commandId, byte[] token, ExecutionResult r) {
    Context.CancellableContext bounded =
        Context.current()
            .withDeadlineAfter(HAND_OVER_DEADLINE.toMillis(), TimeUnit.MILLISECONDS, deadlines);
    try {
      bounded.run(
          () -> {
            if (CommandMapper.reportsBySignal(token)) {
              temporal.newWorkflowStub(CommandWorkflow.class, commandId.toString()).reported(r);
            } else {
              completions.complete(token, r);
            }
          });
    } catch (ActivityNotExistsException | ActivityCanceledException | WorkflowNotFoundException e) {
      log.warn(
          "command {} finished on the cluster, but its workflow no longer waits: {}",
          commandId,
          e.getMessage());
    } catch (RuntimeException e) {
      log.warn(
          "command {} finished on the cluster, but Temporal could not be reached to report it ({});"
              + " the report is kept and handed over again",
          commandId,
          e.getClass().getSimpleName());
      return false;
    } finally {
      bounded.cancel(null);
    }
    commands.reportHandedOver(orgId, commandId, clock.instant());
    return true;
  }

  /**
   * Reports recorded for these clusters that did not reach their workflows (older than a hand-over
   * may take, so one on its way is left alone); stops at the first that still cannot (Temporal is
   * away: the next sweep tries again).
   */
  private void handOverPending(UUID orgId, List<UUID> clusters) {
    Instant before = clock.instant().minus(HAND_OVER_DEADLINE);
    for (CommandMapper.PendingReport p : commands.reportsNotHandedOver(orgId, clusters, before)) {
      ExecutionResult r =
          p.error() == null
              ? new ExecutionResult(true, p.output(), "")
              : new ExecutionResult(false, p.output(), p.error());
      if (!handOver(orgId, p.id(), p.token(), r)) {
        return;
      }
      log.info("command {}: its recorded report reached the workflow", p.id());
    }
  }

  private static String nonEmpty(String s, String fallback) {
    return s == null || s.isBlank() ? fallback : s;
  }
}
