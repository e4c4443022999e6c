package dev.gitopshq.workflows;

import com.uber.m3.tally.Scope;
import com.uber.m3.util.Duration;
import io.temporal.workflow.Workflow;
import java.util.Map;

/**
 * The domain metrics that workflows report through Temporal's metrics scope, which counts once per
 * workflow execution and stays silent while a history is replayed. The hub reports the scope to
 * Micrometer, so these appear at {@code /actuator/prometheus} next to Temporal's own (names in
 * Prometheus form: a counter gets {@code _total}, a timer {@code _seconds}); docs/operations.md
 * lists them.
 */
public final class WorkflowMetrics {
  /** {@code gitopshq_commands_total{type,status}}: commands that reached a final status. */
  public static final String COMMANDS = "gitopshq_commands";

  /** {@code gitopshq_command_duration_seconds{type,status}}: request to final status. */
  public static final String COMMAND_DURATION = "gitopshq_command_duration";

  /** {@code gitopshq_generation_duration_seconds{status}}: one delivery generation. */
  public static final String GENERATION_DURATION = "gitopshq_generation_duration";

  /** {@code gitopshq_generation_units_total{status}}: the units generations planned. */
  public static final String GENERATION_UNITS = "gitopshq_generation_units";

  /**
   * {@code gitopshq_generation_units_reused_total{status}}: planned units that took an earlier
   * generation's tree instead of being rendered (rendered = units - reused).
   */
  public static final String GENERATION_UNITS_REUSED = "gitopshq_generation_units_reused";

  private WorkflowMetrics() {}

  /** A command reached {@code status}; its duration runs from the workflow's start. */
  public static void commandFinished(String type, String status) {
    Scope s = Workflow.getMetricsScope().tagged(Map.of("type", type, "status", status));
    s.counter(COMMANDS).inc(1);
    s.timer(COMMAND_DURATION).record(sinceStart());
  }

  /**
   * A generation ended with {@code status} after planning {@code units} units, {@code reused} of
   * which were not rendered again.
   */
  public static void generationFinished(String status, int units, int reused) {
    Scope s = Workflow.getMetricsScope().tagged(Map.of("status", status));
    s.timer(GENERATION_DURATION).record(sinceStart());
    if (units > 0) {
      s.counter(GENERATION_UNITS).inc(units);
    }
    if (reused > 0) {
      s.counter(GENERATION_UNITS_REUSED).inc(reused);
    }
  }

  private static Duration sinceStart() {
    long started = Workflow.getInfo().getRunStartedTimestampMillis();
    return Duration.ofMillis(Math.max(0, Workflow.currentTimeMillis() - started));
  }
}
