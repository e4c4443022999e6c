package dev.gitopshq.workflows.agentwatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.workflows.TaskQueues;
import dev.gitopshq.workflows.governance.Notification;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AgentWatchWorkflowTest {
  TestWorkflowEnvironment env;
  Fake store;

  static final class Fake implements AgentWatchActivities {
    volatile boolean away = true;
    volatile long checkedAfterMillis = -1;
    final List<Notification> sent = new CopyOnWriteArrayList<>();
    long startedAt;
    TestWorkflowEnvironment env;

    @Override
    public boolean stillDisconnected(
        String orgId, String clusterId, long connectedAtMillis, long timeoutSeconds) {
      checkedAfterMillis = env.currentTimeMillis() - startedAt;
      return away;
    }

    @Override
    public void notifyDisconnected(Notification notification) {
      sent.add(notification);
    }
  }

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance();
    Worker w = env.newWorker(TaskQueues.HUB);
    w.registerWorkflowImplementationTypes(AgentWatchWorkflowImpl.class);
    store = new Fake();
    store.env = env;
    w.registerActivitiesImplementations(store);
    env.start();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  boolean run() {
    AgentWatchRequest r = new AgentWatchRequest("org", "c1", "prod-eu", 1000, 90);
    store.startedAt = env.currentTimeMillis();
    return env.getWorkflowClient()
        .newWorkflowStub(
            AgentWatchWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.HUB)
                .setWorkflowId(r.workflowId())
                .build())
        .watch(r);
  }

  @Test
  void notifiesWhenTheAgentStaysAwayPastTheTimeout() {
    assertThat(run()).isTrue();
    assertThat(store.checkedAfterMillis).isGreaterThanOrEqualTo(90_000);
    assertThat(store.sent)
        .singleElement()
        .satisfies(
            n -> {
              assertThat(n.event()).isEqualTo("agent.disconnected");
              assertThat(n.summary()).contains("prod-eu").contains("90 s");
            });
  }

  @Test
  void staysQuietWhenTheAgentCameBack() {
    store.away = false;
    assertThat(run()).isFalse();
    assertThat(store.sent).isEmpty();
  }
}
