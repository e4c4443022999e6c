package dev.gitopshq.workflows.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.workflows.TaskQueues;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AdapterWiringWorkflowTest {
  TestWorkflowEnvironment env;
  Fake activities;

  static final class Fake implements AdapterWiringActivities {
    final List<String> causes = new CopyOnWriteArrayList<>();
    final List<Long> at = new CopyOnWriteArrayList<>();
    volatile IntFunction<WiringOutcome> outcome = round -> new WiringOutcome(1, 0, 0, "");
    volatile CountDownLatch firstStarted = new CountDownLatch(1);
    volatile CountDownLatch release = new CountDownLatch(0);
    TestWorkflowEnvironment env;

    @Override
    public WiringOutcome wireCluster(String orgId, String clusterId, String cause) {
      causes.add(cause);
      at.add(env.currentTimeMillis());
      firstStarted.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return outcome.apply(causes.size() - 1);
    }
  }

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance();
    Worker w = env.newWorker(TaskQueues.HUB);
    w.registerWorkflowImplementationTypes(AdapterWiringWorkflowImpl.class);
    activities = new Fake();
    activities.env = env;
    w.registerActivitiesImplementations(activities);
    env.start();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  AdapterWiringWorkflow stub(AdapterWiringRequest r) {
    return env.getWorkflowClient()
        .newWorkflowStub(
            AdapterWiringWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.HUB)
                .setWorkflowId(r.workflowId())
                .build());
  }

  @Test
  void changesThatArriveWhileItWiresAreWiredOnceMoreTogether() throws Exception {
    activities.release = new CountDownLatch(1);
    AdapterWiringRequest r = new AdapterWiringRequest("org", "c1", "configuration revision 3");
    AdapterWiringWorkflow wf = stub(r);
    WorkflowClient.start(wf::wire, r);
    assertThat(activities.firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
    AdapterWiringWorkflow running =
        env.getWorkflowClient().newWorkflowStub(AdapterWiringWorkflow.class, r.workflowId());
    running.again("deployment d-1");
    running.again("deployment d-2");
    activities.release.countDown();
    WiringOutcome done =
        env.getWorkflowClient()
            .newUntypedWorkflowStub(r.workflowId())
            .getResult(WiringOutcome.class);

    assertThat(done.wired()).isEqualTo(1);
    assertThat(activities.causes)
        .containsExactly("configuration revision 3", "deployment d-1; deployment d-2");
  }

  @Test
  void aRoundWithFailedBindingsIsRetriedWithABackoffUntilItWiresThemAll() {
    activities.outcome =
        round -> round < 2 ? new WiringOutcome(0, 1, 0, "") : new WiringOutcome(1, 0, 0, "");
    AdapterWiringRequest r = new AdapterWiringRequest("org", "c2", "the agent connected");

    WiringOutcome done = stub(r).wire(r);

    assertThat(done.failed()).isZero();
    assertThat(activities.causes)
        .containsExactly(
            "the agent connected",
            "retrying 1 binding(s) that failed",
            "retrying 1 binding(s) that failed");
    assertThat(activities.at.get(1) - activities.at.get(0)).isGreaterThanOrEqualTo(30_000);
    assertThat(activities.at.get(2) - activities.at.get(1)).isGreaterThanOrEqualTo(60_000);
  }
}
