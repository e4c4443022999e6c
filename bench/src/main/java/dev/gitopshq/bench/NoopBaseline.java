package dev.gitopshq.bench;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The floor under any command: a workflow that runs one activity doing nothing, on the same
 * Temporal server as the hub, with a worker and a client of its own (Temporal SDK defaults, like
 * the hub's worker) on a separate task queue. One round trip is a workflow start plus waiting for
 * its result ({@code WorkflowStub} call), measured from the client. The start is eager, as the hub
 * starts commands: the first workflow task comes back with the start instead of through the task
 * queue.
 */
public final class NoopBaseline implements AutoCloseable {
  /** The task queue of the baseline; the hub's worker polls {@code gitopshq-hub}, never this. */
  public static final String TASK_QUEUE = "gitopshq-bench-noop";

  /** A workflow that calls {@link NoopActivity#noop} once and returns its result. */
  @WorkflowInterface
  public interface NoopWorkflow {
    @WorkflowMethod
    String run(String input);
  }

  /** An activity that returns its input. */
  @ActivityInterface
  public interface NoopActivity {
    @ActivityMethod
    String noop(String input);
  }

  /** See {@link NoopWorkflow}. */
  public static class NoopWorkflowImpl implements NoopWorkflow {
    private final NoopActivity activity =
        Workflow.newActivityStub(
            NoopActivity.class,
            ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(10)).build());

    @Override
    public String run(String input) {
      return activity.noop(input);
    }
  }

  /** See {@link NoopActivity}. */
  public static class NoopActivityImpl implements NoopActivity {
    @Override
    public String noop(String input) {
      return input;
    }
  }

  private final WorkflowServiceStubs service;
  private final WorkflowClient client;
  private final WorkerFactory factory;

  /** Connects to Temporal and starts the baseline's worker. */
  public NoopBaseline(String address, String namespace) {
    service =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(address).build());
    client =
        WorkflowClient.newInstance(
            service, WorkflowClientOptions.newBuilder().setNamespace(namespace).build());
    factory = WorkerFactory.newInstance(client);
    Worker worker = factory.newWorker(TASK_QUEUE);
    worker.registerWorkflowImplementationTypes(NoopWorkflowImpl.class);
    worker.registerActivitiesImplementations(new NoopActivityImpl());
    factory.start();
  }

  /** One workflow start plus waiting for its result, in nanoseconds. */
  public long roundTrip() {
    NoopWorkflow wf =
        client.newWorkflowStub(
            NoopWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TASK_QUEUE)
                .setWorkflowId("bench-noop-" + UUID.randomUUID())
                .setDisableEagerExecution(false)
                .build());
    long t0 = System.nanoTime();
    String out = wf.run("x");
    long elapsed = System.nanoTime() - t0;
    if (!"x".equals(out)) {
      throw new IllegalStateException("the no-op workflow returned '" + out + "'");
    }
    return elapsed;
  }

  @Override
  public void close() {
    factory.shutdown();
    factory.awaitTermination(10, TimeUnit.SECONDS);
    service.shutdown();
    service.awaitTermination(5, TimeUnit.SECONDS);
  }
}
