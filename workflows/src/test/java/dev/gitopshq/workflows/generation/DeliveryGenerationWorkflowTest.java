package dev.gitopshq.workflows.generation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.workflows.Histories;
import dev.gitopshq.workflows.TaskQueues;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The generation workflow's branches with a fake far side: parallel batches, failure, supersession.
 */
class DeliveryGenerationWorkflowTest {
  static final String ORG = "00000000-0000-0000-0000-000000000001";
  static final String PROJECT = "00000000-0000-0000-0000-0000000000a1";

  TestWorkflowEnvironment env;
  WorkflowClient client;
  Fake fake;

  /** Records what the real activities would be asked to do. */
  static final class Fake implements GenerationActivities {
    volatile GenerationPlan plan = new GenerationPlan("gen-1", 30, 3);
    volatile CountDownLatch allStarted = new CountDownLatch(0);
    final Map<Integer, AtomicInteger> attempts = new ConcurrentHashMap<>();
    final List<Integer> rendered = new CopyOnWriteArrayList<>();
    volatile int failingBatch = -1;
    volatile boolean failForGood;
    volatile boolean planFails;
    final List<String> commits = new CopyOnWriteArrayList<>();
    final List<String> failures = new CopyOnWriteArrayList<>();

    @Override
    public GenerationPlan plan(GenerationRequest request) {
      if (planFails) {
        throw ApplicationFailure.newNonRetryableFailure(
            "the namespace pattern of production gives tenants acme and globex the namespace production",
            DeliveryGenerationWorkflowImpl.PLAN_FAILED);
      }
      return plan;
    }

    @Override
    public int render(String orgId, String generationId, int batch) {
      int attempt = attempts.computeIfAbsent(batch, b -> new AtomicInteger()).incrementAndGet();
      allStarted.countDown();
      try {
        // Every batch waits until all have started: proves they run side by side.
        assertThat(allStarted.await(10, TimeUnit.SECONDS)).isTrue();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (batch == failingBatch) {
        if (failForGood) {
          throw ApplicationFailure.newNonRetryableFailure(
              "web for acme in production: template: webapp/templates/deployment.yaml:7: nil pointer",
              DeliveryGenerationWorkflowImpl.RENDER_FAILED);
        }
        if (attempt == 1) {
          throw new IllegalStateException("database connection reset");
        }
      }
      rendered.add(batch);
      return 10;
    }

    @Override
    public GenerationResult commit(String orgId, String generationId) {
      commits.add(generationId);
      return new GenerationResult(
          generationId, GenerationResult.COMMITTED, "c0ffee", 30, 42, "42 files changed", 0);
    }

    @Override
    public GenerationResult fail(String orgId, String generationId, String reason) {
      failures.add(reason);
      return new GenerationResult(generationId, GenerationResult.FAILED, null, 0, 0, reason, 0);
    }
  }

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance();
    Worker worker = env.newWorker(TaskQueues.HUB);
    worker.registerWorkflowImplementationTypes(DeliveryGenerationWorkflowImpl.class);
    fake = new Fake();
    worker.registerActivitiesImplementations(fake);
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  GenerationResult run(long revision) {
    String id = GenerationRequest.workflowId(PROJECT, revision);
    DeliveryGenerationWorkflow wf =
        client.newWorkflowStub(
            DeliveryGenerationWorkflow.class,
            WorkflowOptions.newBuilder().setTaskQueue(TaskQueues.HUB).setWorkflowId(id).build());
    return wf.run(new GenerationRequest(ORG, PROJECT, revision, "config", "Ada Admin"));
  }

  @Test
  void rendersEveryBatchInParallelThenCommitsOnce() {
    fake.allStarted = new CountDownLatch(3);
    GenerationResult r = run(7);
    Histories.save(client, GenerationRequest.workflowId(PROJECT, 7), "delivery-committed");

    assertThat(r.status()).isEqualTo(GenerationResult.COMMITTED);
    assertThat(fake.rendered).containsExactlyInAnyOrder(0, 1, 2);
    assertThat(fake.commits).containsExactly("gen-1");
    assertThat(fake.failures).isEmpty();
  }

  @Test
  void aTransientRenderErrorIsRetried() {
    fake.failingBatch = 1;
    GenerationResult r = run(8);

    assertThat(r.status()).isEqualTo(GenerationResult.COMMITTED);
    assertThat(fake.attempts.get(1)).hasValue(2);
    assertThat(fake.commits).hasSize(1);
  }

  @Test
  void aUnitThatCannotRenderFailsTheGenerationAndNothingIsCommitted() {
    fake.failingBatch = 2;
    fake.failForGood = true;
    GenerationResult r = run(9);
    Histories.save(client, GenerationRequest.workflowId(PROJECT, 9), "delivery-render-failed");

    assertThat(r.status()).isEqualTo(GenerationResult.FAILED);
    assertThat(r.detail()).contains("web for acme in production").contains("nil pointer");
    assertThat(fake.attempts.get(2)).as("not retried").hasValue(1);
    assertThat(fake.commits).isEmpty();
    assertThat(fake.failures).hasSize(1);
  }

  @Test
  void anOlderRevisionThanTheGeneratedOneDoesNothing() {
    fake.plan = new GenerationPlan(null, 0, 0);
    GenerationResult r = run(3);

    assertThat(r.status()).isEqualTo(GenerationResult.SUPERSEDED);
    assertThat(fake.rendered).isEmpty();
    assertThat(fake.commits).isEmpty();
  }

  @Test
  void aConfigurationThatCannotBePlannedFailsWithTheReason() {
    fake.planFails = true;
    GenerationResult r = run(4);

    assertThat(r.status()).isEqualTo(GenerationResult.FAILED);
    assertThat(r.detail()).contains("namespace pattern of production");
    assertThat(fake.commits).isEmpty();
  }
}
