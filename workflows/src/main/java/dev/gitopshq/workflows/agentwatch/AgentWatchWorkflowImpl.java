package dev.gitopshq.workflows.agentwatch;

import dev.gitopshq.workflows.governance.Notification;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/** Sleeps the disconnect timeout (plus a flush's grace), then checks and notifies. */
public class AgentWatchWorkflowImpl implements AgentWatchWorkflow {
  /** Heartbeats reach the store within a flush period; give them that long before judging. */
  static final Duration GRACE = Duration.ofSeconds(5);

  private final AgentWatchActivities store =
      Workflow.newActivityStub(
          AgentWatchActivities.class,
          ActivityOptions.newBuilder()
              .setStartToCloseTimeout(Duration.ofSeconds(15))
              .setScheduleToCloseTimeout(Duration.ofHours(1))
              .setRetryOptions(
                  RetryOptions.newBuilder()
                      .setInitialInterval(Duration.ofSeconds(2))
                      .setMaximumInterval(Duration.ofMinutes(5))
                      .build())
              .build());

  @Override
  public boolean watch(AgentWatchRequest r) {
    Workflow.sleep(Duration.ofSeconds(r.disconnectTimeoutSeconds()).plus(GRACE));
    if (!store.stillDisconnected(
        r.orgId(), r.clusterId(), r.connectedAtMillis(), r.disconnectTimeoutSeconds())) {
      return false;
    }
    store.notifyDisconnected(
        new Notification(
            r.orgId(),
            r.workflowId(),
            "agent.disconnected",
            r.clusterId(),
            r.clusterId(),
            "the agent of cluster "
                + r.clusterName()
                + " has been disconnected for more than "
                + r.disconnectTimeoutSeconds()
                + " s"));
    return true;
  }
}
