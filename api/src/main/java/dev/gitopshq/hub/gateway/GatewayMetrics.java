package dev.gitopshq.hub.gateway;

import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.Supplier;

/**
 * The agent link's metrics on this replica: {@code gitopshq_agent_streams} (Connect streams held
 * now), {@code gitopshq_agent_heartbeats_total}, and {@code
 * gitopshq_agent_stream_errors_total{code}} (streams ended by an error: the gRPC status code the
 * hub closed them with, or {@code TRANSPORT} when the agent's side broke).
 */
final class GatewayMetrics {
  private final MeterRegistry meters;
  private final Counter heartbeats;

  GatewayMetrics(MeterRegistry meters, Supplier<Number> streams) {
    this.meters = meters;
    Gauge.builder("gitopshq.agent.streams", streams)
        .description("Agent Connect streams held by this hub replica")
        .register(meters);
    this.heartbeats =
        Counter.builder("gitopshq.agent.heartbeats")
            .description("Agent heartbeats received")
            .register(meters);
  }

  void heartbeat() {
    heartbeats.increment();
  }

  void streamError(Status.Code code) {
    streamError(code.name());
  }

  void streamError(String code) {
    Counter.builder("gitopshq.agent.stream.errors")
        .description("Agent streams ended by an error")
        .tag("code", code)
        .register(meters)
        .increment();
  }
}
