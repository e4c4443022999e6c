package dev.gitopshq.hub.gateway;

import dev.gitopshq.activities.delivery.ProjectFenceMapper;
import dev.gitopshq.activities.delivery.ProjectFenceRow;
import dev.gitopshq.activities.release.DirectApplies;
import dev.gitopshq.activities.release.DirectApplyMapper;
import dev.gitopshq.activities.release.DirectApplyRow;
import dev.gitopshq.agent.v1.ApplyRelease;
import dev.gitopshq.agent.v1.ApplyResult;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.TenantFences;
import dev.gitopshq.workflows.release.DirectOutcome;
import io.temporal.client.ActivityCompletionClient;
import io.temporal.client.ActivityCompletionException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves parked direct applies to the agents this replica holds and completes the waiting apply
 * activity when an agent reports, the way {@link CommandDispatcher} does for commands: the apply
 * waits in PostgreSQL with the activity's task token, so whichever replica holds the agent's
 * stream, now or after a reconnect or a hub restart, sends it (its files read from the repository
 * at that moment), and whichever replica receives the result completes the activity, once.
 */
final class DirectApplyDispatcher {
  private static final Logger log = LoggerFactory.getLogger(DirectApplyDispatcher.class);

  /** Enough that one completion Temporal keeps refusing does not hold up the others. */
  private static final int COMPLETION_THREADS = 4;

  private final DirectApplyMapper applies;
  private final DirectApplies direct;
  private final AgentConnections connections;
  private final ActivityCompletionClient completions;
  private final Clock clock;

  /**
   * Completes activities off the agent's stream: Temporal's client retries a completion it cannot
   * deliver for up to a minute, which must not hold up the stream's heartbeats and results. The
   * apply's outcome is stored before; a completion lost with the process is recovered by the
   * activity's retry, which the agent answers from memory.
   */
  private final ThreadPoolExecutor completer =
      new ThreadPoolExecutor(
          COMPLETION_THREADS,
          COMPLETION_THREADS,
          30,
          TimeUnit.SECONDS,
          new ArrayBlockingQueue<>(1_000),
          r -> {
            Thread t = new Thread(r, "gitopshq-direct-completions");
            t.setDaemon(true);
            return t;
          },
          new ThreadPoolExecutor.CallerRunsPolicy());

  {
    completer.allowCoreThreadTimeOut(true);
  }

  private final ProjectFenceMapper fences;

  DirectApplyDispatcher(
      DirectApplyMapper applies,
      DirectApplies direct,
      AgentConnections connections,
      ActivityCompletionClient completions,
      ProjectFenceMapper fences,
      Clock clock) {
    this.applies = applies;
    this.fences = fences;
    this.direct = direct;
    this.connections = connections;
    this.completions = completions;
    this.clock = clock;
  }

  /** Sends every parked apply of the session's cluster (after Hello). */
  void sendQueued(AgentSession session) {
    for (DirectApplyRow a : applies.queued(session.orgId, session.clusterId)) {
      send(session, a);
    }
  }

  /** Parked applies of one cluster no stream has carried yet (a replica said one was parked). */
  void sendUnsent(UUID orgId, UUID clusterId) {
    for (DirectApplyRow a : applies.unsent(orgId, List.of(clusterId))) {
      connections.get(a.clusterId()).filter(s -> s.orgId.equals(orgId)).ifPresent(s -> send(s, a));
    }
  }

  /** The periodic sweep: unsent applies of the agents held here, and overdue ones anywhere. */
  void sweep() {
    Map<UUID, List<UUID>> byOrg = new HashMap<>();
    for (AgentSession s : connections.sessions()) {
      if (s.connectedAt() != null) {
        byOrg.computeIfAbsent(s.orgId, k -> new ArrayList<>()).add(s.clusterId);
      }
    }
    byOrg.forEach(
        (org, clusters) -> {
          for (DirectApplyRow a : applies.unsent(org, clusters)) {
            connections.get(a.clusterId()).ifPresent(s -> send(s, a));
          }
        });
    for (DirectApplyRow a : applies.overdue(clock.instant())) {
      fail(
          a,
          "the agent of cluster "
              + a.cluster()
              + " did not take the apply before its deadline;"
              + " nothing was applied");
    }
  }

  private void send(AgentSession session, DirectApplyRow a) {
    Instant now = clock.instant();
    if (now.isAfter(a.dispatchDeadline())) {
      fail(a, "the deadline passed before the agent could take the apply; nothing was applied");
      return;
    }
    ApplyRelease message;
    try {
      // The project's fence as its admins set it now, so a fence tightened after the release was
      // generated still holds at the cluster.
      message =
          direct.message(
              a,
              direct.requester(a),
              fences
                  .find(a.orgId(), a.projectId())
                  .map(ProjectFenceRow::toProto)
                  .orElse(TenantFences.DEFAULT));
    } catch (IllegalArgumentException e) {
      fail(a, e.getMessage());
      return;
    }
    session.send(HubMessage.newBuilder().setCorrelationId(a.id()).setApplyRelease(message).build());
    applies.markSent(a.orgId(), a.id(), now);
    log.info(
        "direct apply {} ({} files of {}@{}) sent to cluster {}",
        a.id(),
        message.getFilesCount(),
        a.environment(),
        a.commit(),
        session.clusterId);
  }

  /** An agent reported; complete the waiting activity (once, whichever replica gets it). */
  void onResult(AgentSession session, ApplyResult result) {
    String id = result.getApplyId();
    if (id.length() > 200) {
      return;
    }
    DirectApplyRow row = applies.find(session.orgId, id).orElse(null);
    if (row == null || !row.clusterId().equals(session.clusterId)) {
      log.warn("cluster {} reported an apply it was not given", session.clusterId);
      return;
    }
    byte[] token = applies.takeTaskToken(session.orgId, session.clusterId, id).orElse(null);
    if (token == null) {
      return; // Already completed (a repeated report).
    }
    DirectOutcome outcome = direct.store(row, result);
    log.info(
        "cluster {} reported direct apply {}: {} ({} objects)",
        session.clusterId,
        LogSafe.text(id),
        result.getOutcome(),
        result.getObjectsCount());
    complete(id, token, outcome);
  }

  private void fail(DirectApplyRow a, String error) {
    byte[] token = applies.takeTaskToken(a.orgId(), a.clusterId(), a.id()).orElse(null);
    if (token != null) {
      complete(a.id(), token, direct.fail(a, error));
    }
  }

  private void complete(String id, byte[] token, DirectOutcome outcome) {
    completer.execute(() -> completeNow(id, token, outcome));
  }

  private void completeNow(String id, byte[] token, DirectOutcome outcome) {
    try {
      completions.complete(token, outcome);
    } catch (ActivityCompletionException e) {
      log.warn(
          "direct apply {} finished, but its workflow no longer waits: {}", id, e.getMessage());
    }
  }
}
