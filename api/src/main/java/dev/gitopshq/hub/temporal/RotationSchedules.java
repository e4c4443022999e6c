package dev.gitopshq.hub.temporal;

import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.RotationScheduleState;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.hub.config.TokenProperties;
import dev.gitopshq.workflows.TaskQueues;
import dev.gitopshq.workflows.rotation.ScheduledRotation;
import dev.gitopshq.workflows.rotation.ScheduledRotationWorkflow;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleAlreadyRunningException;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import io.temporal.client.schedules.ScheduleOptions;
import io.temporal.client.schedules.ScheduleSpec;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * One Temporal Schedule per cluster whose agent reports {@code token.rotate}: every
 * GITOPSHQ_TOKEN_ROTATION_INTERVAL (30 days) it starts a rotation. Created when such an agent says
 * Hello, removed when an agent says Hello without the capability or the cluster is deleted.
 *
 * <p>Whether a cluster has its schedule is recorded on its row ({@code
 * clusters.rotation_scheduled}, shared by the replicas and kept across restarts), and the Hello
 * reads it with the row it reads anyway: only a Hello whose capability differs from the record (or
 * a cluster whose state is unknown) reaches Temporal, so agents moving to another replica or a
 * restarted hub cost nothing.
 */
@Component
public class RotationSchedules {
  private static final Logger log = LoggerFactory.getLogger(RotationSchedules.class);

  /** How often one cluster is looked at again when another replica changed its state meanwhile. */
  private static final int ATTEMPTS = 3;

  private final ScheduleClient schedules;
  private final ClusterMapper clusters;
  private final TokenProperties tokens;

  /**
   * Clusters with a reconciliation waiting on {@link #worker}: it reads what is wanted when it
   * runs, so one covers every Hello before it (an agent reconnecting in a loop while Temporal is
   * down does not pile up calls).
   */
  private final Set<UUID> queued = ConcurrentHashMap.newKeySet();

  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "rotation-schedules");
            t.setDaemon(true);
            return t;
          });

  public RotationSchedules(
      ScheduleClient schedules, ClusterMapper clusters, TokenProperties tokens) {
    this.schedules = schedules;
    this.clusters = clusters;
    this.tokens = tokens;
  }

  /**
   * Called on every accepted Hello with what the cluster's row records ({@code scheduled}, null:
   * unknown); does its Temporal calls off the caller's thread, and only when the agent's capability
   * differs from that record.
   */
  public void onHello(UUID orgId, UUID clusterId, boolean tokenRotate, Boolean scheduled) {
    if (scheduled != null && scheduled == tokenRotate) {
      return;
    }
    if (queued.add(clusterId)) {
      worker.execute(
          () -> {
            queued.remove(clusterId);
            reconcile(orgId, clusterId);
          });
    }
  }

  /**
   * Makes the cluster's schedule what its agent last reported, then records it. A failed Temporal
   * call records nothing, so the agent's next Hello tries again.
   */
  private void reconcile(UUID orgId, UUID clusterId) {
    try {
      boolean ensured = false;
      for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        Optional<RotationScheduleState> state =
            clusters.rotationSchedule(orgId, clusterId, Capabilities.TOKEN_ROTATE);
        if (state.isEmpty()) {
          if (ensured) {
            // The cluster was deleted while the schedule was being made: its removal may have come
            // first.
            deleteSchedule(clusterId);
          }
          return;
        }
        RotationScheduleState s = state.get();
        if (s.settled()) {
          return;
        }
        boolean done = s.wanted() ? ensure(orgId, clusterId) : deleteSchedule(clusterId);
        if (!done) {
          return;
        }
        ensured = s.wanted();
        if (clusters.recordRotationSchedule(orgId, clusterId, s.scheduled(), s.wanted()) == 1) {
          return;
        }
        // Another replica recorded a state while this one called Temporal: their calls may have
        // reached Temporal in either order, so the state is unknown until this replica, whose call
        // is done, makes it what the agent reports now.
        clusters.forgetRotationSchedule(orgId, clusterId);
      }
      log.warn(
          "token rotation schedule of cluster {} kept changing; the agent's next hello retries",
          clusterId);
    } catch (RuntimeException e) {
      log.warn(
          "could not reconcile the token rotation schedule of cluster {}: {}",
          clusterId,
          e.toString());
    }
  }

  /** Creates the cluster's schedule; false if Temporal refused (it may be unreachable). */
  private boolean ensure(UUID orgId, UUID clusterId) {
    Schedule schedule =
        Schedule.newBuilder()
            .setAction(
                ScheduleActionStartWorkflow.newBuilder()
                    .setWorkflowType(ScheduledRotationWorkflow.class)
                    .setArguments(
                        new ScheduledRotation(
                            orgId.toString(), clusterId.toString(),
                            tokens.rotationAckTimeout().toSeconds(),
                                tokens.rotationGrace().toSeconds()))
                    .setOptions(
                        WorkflowOptions.newBuilder()
                            .setWorkflowId("token-rotation-scheduled-" + clusterId)
                            .setTaskQueue(TaskQueues.HUB)
                            .build())
                    .build())
            .setSpec(
                ScheduleSpec.newBuilder()
                    .setIntervals(List.of(new ScheduleIntervalSpec(tokens.rotationInterval())))
                    .build())
            .build();
    try {
      schedules.createSchedule(
          ScheduledRotation.scheduleId(clusterId.toString()),
          schedule,
          ScheduleOptions.newBuilder().build());
      log.info(
          "scheduled token rotation of cluster {} every {}", clusterId, tokens.rotationInterval());
      return true;
    } catch (ScheduleAlreadyRunningException exists) {
      // Made earlier (before its state was recorded, or by a replica whose record lost).
      return true;
    } catch (RuntimeException e) {
      log.warn("could not schedule token rotation of cluster {}: {}", clusterId, e.toString());
      return false;
    }
  }

  /** Removes the cluster's schedule if there is one (the cluster was deleted). */
  public void remove(UUID clusterId) {
    deleteSchedule(clusterId);
  }

  /** Deletes the cluster's schedule; true if it is gone (also when there was none). */
  private boolean deleteSchedule(UUID clusterId) {
    try {
      schedules.getHandle(ScheduledRotation.scheduleId(clusterId.toString())).delete();
      log.info("removed the token rotation schedule of cluster {}", clusterId);
      return true;
    } catch (RuntimeException e) {
      if (notFound(e)) {
        return true;
      }
      log.warn(
          "could not remove the token rotation schedule of cluster {}: {}",
          clusterId,
          e.toString());
      return false;
    }
  }

  private static boolean notFound(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StatusRuntimeException s
          && s.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return true;
      }
    }
    return false;
  }

  /** Whether the cluster has a rotation schedule (for tests and diagnostics). */
  public boolean exists(UUID clusterId) {
    try {
      schedules.getHandle(ScheduledRotation.scheduleId(clusterId.toString())).describe();
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * Waits until every reconciliation asked for before this call has run (for tests: a Hello's
   * Temporal calls, if any, are done when it returns).
   */
  public void awaitIdle(Duration timeout) {
    try {
      worker.submit(() -> {}).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("rotation schedules still busy after " + timeout, e);
    }
  }
}
