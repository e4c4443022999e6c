package dev.gitopshq.agent.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Metrics;

/**
 * The agent's own metrics, on Micrometer's global registry (served by {@link MetricsServer} when
 * {@code GITOPSHQ_METRICS_PORT} is set; recording costs nothing otherwise):
 *
 * <ul>
 *   <li>{@code gitopshq_agent_connected}: 1 while the hub's Connect stream is open and welcomed;
 *   <li>{@code gitopshq_agent_connects_total}: streams the hub welcomed (a reconnect counts);
 *   <li>{@code gitopshq_agent_heartbeats_sent_total};
 *   <li>{@code gitopshq_agent_commands_total{type,result}}: commands run ({@code succeeded}, {@code
 *       failed});
 * </ul>
 *
 * <p>plus the JVM's memory, GC, threads and CPU.
 */
public final class AgentMetrics {
  private AgentMetrics() {}

  public static void connected() {
    Counter.builder("gitopshq.agent.connects")
        .description("Connect streams the hub welcomed")
        .register(Metrics.globalRegistry)
        .increment();
  }

  public static void heartbeatSent() {
    Counter.builder("gitopshq.agent.heartbeats.sent")
        .description("Heartbeats sent to the hub")
        .register(Metrics.globalRegistry)
        .increment();
  }

  public static void commandRun(String type, boolean succeeded) {
    Counter.builder("gitopshq.agent.commands")
        .description("Commands the agent ran")
        .tag("type", type)
        .tag("result", succeeded ? "succeeded" : "failed")
        .register(Metrics.globalRegistry)
        .increment();
  }
}
