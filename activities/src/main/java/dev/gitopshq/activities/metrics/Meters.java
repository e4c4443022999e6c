package dev.gitopshq.activities.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.Timer;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The activities' domain metrics, on Micrometer's global registry (the hub's Prometheus registry
 * joins it; elsewhere, such as unit tests, recording costs nothing):
 *
 * <ul>
 *   <li>{@code gitopshq_opa_decision_seconds{policy,result}}: one policy evaluation in OPA ({@code
 *       policy} is approval, release, freeze, credentials or other); {@code result} is {@code ok},
 *       {@code unavailable} (OPA unreachable or the policy not loaded) or {@code error} (OPA failed
 *       to evaluate, or no decision);
 *   <li>{@code gitopshq_opa_decision_failures_total{policy,result}}: the evaluations that did not
 *       give a decision;
 *   <li>{@code gitopshq_git_write_seconds{operation}}: writing to a hosted repository ({@code
 *       commit}, {@code tree});
 *   <li>{@code gitopshq_helm_renders_total{result}}: Helm renders in the render workers ({@code
 *       RenderWorkers}); {@code result} is {@code ok}, {@code failed} (Helm's error: the chart or
 *       its values), {@code timeout} or {@code memory} (the worker passed its limit and was
 *       killed), {@code crashed} (the worker ended for another reason) or {@code busy} (every
 *       worker was busy for the whole deadline);
 *   <li>{@code gitopshq_render_workers_started_total}: render worker processes started (the first
 *       ones, replacements of killed ones, and those that replace a worker after its renders).
 * </ul>
 */
public final class Meters {
  /** The policies the hub itself asks; any other name is tagged {@code other} (names are free). */
  private static final Set<String> KNOWN_POLICIES =
      Set.of("approval", "release", "freeze", "credentials");

  private Meters() {}

  static String policyTag(String policy) {
    return KNOWN_POLICIES.contains(policy) ? policy : "other";
  }

  /**
   * Times one OPA evaluation of {@code policy}, tagging how it ended: a failure that {@code
   * unavailable} accepts is tagged {@code unavailable}, any other {@code error}. The caller names
   * its own "OPA unavailable" failure, so the metrics know no policy type.
   */
  public static <T> T opaDecision(
      String policyName, Supplier<T> evaluation, Predicate<RuntimeException> unavailable) {
    String policy = policyTag(policyName);
    long start = System.nanoTime();
    String result = "error";
    try {
      T value = evaluation.get();
      result = "ok";
      return value;
    } catch (RuntimeException e) {
      if (unavailable.test(e)) {
        result = "unavailable";
      }
      throw e;
    } finally {
      Timer.builder("gitopshq.opa.decision")
          .description("One policy evaluation in OPA")
          .tag("policy", policy)
          .tag("result", result)
          .publishPercentileHistogram()
          .register(Metrics.globalRegistry)
          .record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
      if (!result.equals("ok")) {
        Counter.builder("gitopshq.opa.decision.failures")
            .description("Policy evaluations that gave no decision")
            .tag("policy", policy)
            .tag("result", result)
            .register(Metrics.globalRegistry)
            .increment();
      }
    }
  }

  /** Counts one Helm render in a render worker, by how it ended. */
  public static void helmRender(String result) {
    Counter.builder("gitopshq.helm.renders")
        .description("Helm renders in the render worker processes, by how they ended")
        .tag("result", result)
        .register(Metrics.globalRegistry)
        .increment();
  }

  private static final Counter RENDER_WORKERS_STARTED =
      Counter.builder("gitopshq.render.workers.started")
          .description("Render worker processes started")
          .register(Metrics.globalRegistry);

  /** Counts one render worker process started. */
  public static void renderWorkerStarted() {
    RENDER_WORKERS_STARTED.increment();
  }

  /** Times one write to a hosted repository. */
  public static <T> T gitWrite(String operation, Supplier<T> write) {
    return Timer.builder("gitopshq.git.write")
        .description("Writes to the hosted Git repositories")
        .tag("operation", operation)
        .publishPercentileHistogram()
        .register(Metrics.globalRegistry)
        .record(write);
  }
}
