package dev.gitopshq.hub.temporal;

import dev.gitopshq.hub.config.TemporalProperties;
import dev.gitopshq.hub.config.TokenProperties;
import dev.gitopshq.workflows.TaskQueues;
import dev.gitopshq.workflows.rotation.ScheduledRotation;
import dev.gitopshq.workflows.rotation.ScheduledRotationWorkflow;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleActionStartWorkflow;
import io.temporal.client.schedules.ScheduleAlreadyRunningException;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleClientOptions;
import io.temporal.client.schedules.ScheduleIntervalSpec;
import io.temporal.client.schedules.ScheduleOptions;
import io.temporal.client.schedules.ScheduleSpec;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * One Temporal Schedule per cluster whose agent reports {@code token.rotate}: every
 * GITOPSHQ_TOKEN_ROTATION_INTERVAL (30 days) it starts a rotation. Created when such an agent says
 * Hello, removed when an agent says Hello without the capability or the cluster is deleted.
 */
@Component
public class RotationSchedules {
  private static final Logger log = LoggerFactory.getLogger(RotationSchedules.class);

  private final ScheduleClient schedules;
  private final TokenProperties tokens;

  /**
   * What this replica last did per cluster (true: ensured, false: removed), so a reconnect costs
   * nothing.
   */
  private final Map<UUID, Boolean> known = new ConcurrentHashMap<>();

  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "rotation-schedules");
            t.setDaemon(true);
            return t;
          });

  public RotationSchedules(
      WorkflowServiceStubs stubs, TemporalProperties temporal, TokenProperties tokens) {
    this.schedules =
        ScheduleClient.newInstance(
            stubs, ScheduleClientOptions.newBuilder().setNamespace(temporal.namespace()).build());
    this.tokens = tokens;
  }

  /** Called on every accepted Hello; does its Temporal calls off the caller's thread. */
  public void onHello(UUID orgId, UUID clusterId, boolean tokenRotate) {
    // Only the first Hello on this replica, or a change of capability, reaches Temporal. A
    // schedule another replica made is removed here too, the first time this replica sees the
    // agent without token.rotate.
    if (!Boolean.valueOf(tokenRotate).equals(known.put(clusterId, tokenRotate))) {
      worker.execute(
          () -> {
            if (tokenRotate) {
              ensure(orgId, clusterId);
            } else {
              deleteSchedule(clusterId);
            }
          });
    }
  }

  void ensure(UUID orgId, UUID clusterId) {
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
    } catch (ScheduleAlreadyRunningException exists) {
      // Created earlier, by this or another replica.
    } catch (RuntimeException e) {
      known.remove(clusterId); // The next Hello tries again.
      log.warn("could not schedule token rotation of cluster {}: {}", clusterId, e.toString());
    }
  }

  /** Removes the cluster's schedule if there is one (the cluster was deleted). */
  public void remove(UUID clusterId) {
    known.remove(clusterId);
    deleteSchedule(clusterId);
  }

  private void deleteSchedule(UUID clusterId) {
    try {
      schedules.getHandle(ScheduledRotation.scheduleId(clusterId.toString())).delete();
      log.info("removed the token rotation schedule of cluster {}", clusterId);
    } catch (RuntimeException e) {
      // No schedule, or Temporal unreachable: nothing to undo.
    }
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
}
