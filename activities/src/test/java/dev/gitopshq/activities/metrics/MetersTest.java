package dev.gitopshq.activities.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class MetersTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  /** The caller's "OPA unavailable" failure. */
  private static final class Unavailable extends RuntimeException {}

  @BeforeEach
  void join() {
    Metrics.addRegistry(registry);
  }

  @AfterEach
  void leave() {
    Metrics.removeRegistry(registry);
  }

  private double failures(String policy, String result) {
    var counter =
        registry
            .find("gitopshq.opa.decision.failures")
            .tag("policy", policy)
            .tag("result", result)
            .counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void aFailureTheCallerCallsUnavailableIsTaggedUnavailableAnyOtherError() {
    assertThatThrownBy(
            () ->
                Meters.opaDecision(
                    "approval",
                    () -> {
                      throw new Unavailable();
                    },
                    Unavailable.class::isInstance))
        .isInstanceOf(Unavailable.class);
    assertThatThrownBy(
            () ->
                Meters.opaDecision(
                    "approval",
                    () -> {
                      throw new IllegalStateException("no decision");
                    },
                    Unavailable.class::isInstance))
        .hasMessage("no decision");
    assertThat(Meters.opaDecision("release", () -> "allowed", Unavailable.class::isInstance))
        .isEqualTo("allowed");

    assertThat(failures("approval", "unavailable")).isEqualTo(1);
    assertThat(failures("approval", "error")).isEqualTo(1);
    assertThat(failures("release", "error") + failures("release", "unavailable")).isZero();
    assertThat(
            registry
                .find("gitopshq.opa.decision")
                .tag("policy", "release")
                .tag("result", "ok")
                .timer()
                .count())
        .isEqualTo(1);
  }
}
