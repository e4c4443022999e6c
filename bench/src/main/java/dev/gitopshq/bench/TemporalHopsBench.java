package dev.gitopshq.bench;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * What one Temporal hop costs on a server: workflows of different shapes (no activity, one, five
 * sequential activities, five local activities then one activity), each started and awaited by a
 * client in this JVM whose worker polls the same task queue, with eager workflow start off and on.
 * The slope between the shapes is the price of a workflow task plus an activity task; compare runs
 * against servers with different dynamic configuration ({@code bench/run-temporal-hops.sh}).
 */
public final class TemporalHopsBench {
  static final String TASK_QUEUE = "gitopshq-bench-hops";

  private static final String USAGE =
      """
      usage: java -cp gitopshq-bench.jar dev.gitopshq.bench.TemporalHopsBench \\
               --temporal-address HOST:PORT --out FILE [--namespace default] \\
               [--rounds 100] [--warmup 20]
      Normally started by bench/run-temporal-hops.sh, which starts the Temporal dev server.""";

  /** Runs {@code locals} local activities, then {@code activities} activities, one at a time. */
  @WorkflowInterface
  public interface HopsWorkflow {
    @WorkflowMethod
    int run(int locals, int activities);
  }

  /** Returns its argument plus one. */
  @ActivityInterface
  public interface Step {
    @ActivityMethod
    int step(int n);
  }

  /** See {@link HopsWorkflow}. */
  public static class HopsWorkflowImpl implements HopsWorkflow {
    private final Step remote =
        Workflow.newActivityStub(
            Step.class,
            ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(10)).build());
    private final Step local =
        Workflow.newLocalActivityStub(
            Step.class,
            LocalActivityOptions.newBuilder()
                .setStartToCloseTimeout(Duration.ofSeconds(10))
                .build());

    @Override
    public int run(int locals, int activities) {
      int n = 0;
      for (int i = 0; i < locals; i++) {
        n = local.step(n);
      }
      for (int i = 0; i < activities; i++) {
        n = remote.step(n);
      }
      return n;
    }
  }

  /** See {@link Step}. */
  public static class StepImpl implements Step {
    @Override
    public int step(int n) {
      return n + 1;
    }
  }

  record Shape(String label, int locals, int activities, boolean eagerStart) {}

  static final List<Shape> SHAPES =
      List.of(
          new Shape("no activity", 0, 0, false),
          new Shape("1 activity", 0, 1, false),
          new Shape("5 activities", 0, 5, false),
          new Shape("5 local activities + 1 activity", 5, 1, false),
          new Shape("no activity, eager start", 0, 0, true),
          new Shape("1 activity, eager start", 0, 1, true),
          new Shape("5 local + 1 activity, eager start", 5, 1, true));

  public static void main(String[] argv) {
    Args.main(argv, USAGE, TemporalHopsBench::run);
  }

  private static void run(Args a) {
    String address = a.required("temporal-address");
    Path out = Path.of(a.required("out"));
    String namespace = a.get("namespace", "default");
    int rounds = a.intValue("rounds", 100, 1);
    int warmup = a.intValue("warmup", 20, 0);
    a.rejectUnknown();

    WorkflowServiceStubs service =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(address).build());
    WorkflowClient client =
        WorkflowClient.newInstance(
            service, WorkflowClientOptions.newBuilder().setNamespace(namespace).build());
    WorkerFactory factory = WorkerFactory.newInstance(client);
    Worker worker = factory.newWorker(TASK_QUEUE);
    worker.registerWorkflowImplementationTypes(HopsWorkflowImpl.class);
    worker.registerActivitiesImplementations(new StepImpl());
    factory.start();
    try {
      for (int i = 0; i < warmup; i++) {
        for (Shape s : SHAPES) {
          roundTrip(client, s);
        }
      }
      // Round-robin over the shapes, so a noisy moment hits all of them alike.
      long[][] samples = new long[SHAPES.size()][rounds];
      for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < SHAPES.size(); i++) {
          samples[i][r] = roundTrip(client, SHAPES.get(i));
        }
      }
      Table table = Table.forStats("shape (start + result)");
      Map<String, Object> results = new LinkedHashMap<>();
      List<Stats> stats = new ArrayList<>();
      for (int i = 0; i < SHAPES.size(); i++) {
        Stats s = Stats.ofNanos(samples[i]);
        stats.add(s);
        table.stats(SHAPES.get(i).label(), s);
        results.put(
            SHAPES.get(i).label(),
            Map.of("summary", s.toMap(), "samplesMs", Report.millis(samples[i])));
      }
      double perActivity = (stats.get(2).p50() - stats.get(1).p50()) / 4;
      double perLocal = (stats.get(3).p50() - stats.get(1).p50()) / 5;
      System.out.println("Temporal hops (" + rounds + " rounds, " + address + ")");
      System.out.println(table);
      System.out.printf(
          "one more activity (workflow task + activity task): %.1f ms (p50 slope, 1 -> 5 activities)%n",
          perActivity);
      System.out.printf("one more local activity: %.1f ms (p50)%n", perLocal);
      new Report("temporal-hops")
          .put("parameters", Map.of("rounds", rounds, "warmup", warmup, "address", address))
          .put("serverArgs", System.getenv().getOrDefault("BENCH_TEMPORAL_ARGS", ""))
          .put("shapes", results)
          .put("perActivityMs", Stats.round(perActivity))
          .put("perLocalActivityMs", Stats.round(perLocal))
          .write(out);
      System.out.println("report: " + out);
    } finally {
      factory.shutdown();
      factory.awaitTermination(10, TimeUnit.SECONDS);
      service.shutdown();
      service.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static long roundTrip(WorkflowClient client, Shape s) {
    HopsWorkflow wf =
        client.newWorkflowStub(
            HopsWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TASK_QUEUE)
                .setWorkflowId("bench-hops-" + UUID.randomUUID())
                .setDisableEagerExecution(!s.eagerStart())
                .build());
    long t0 = System.nanoTime();
    int n = wf.run(s.locals(), s.activities());
    long elapsed = System.nanoTime() - t0;
    if (n != s.locals() + s.activities()) {
      throw new IllegalStateException("the workflow returned " + n);
    }
    return elapsed;
  }
}
