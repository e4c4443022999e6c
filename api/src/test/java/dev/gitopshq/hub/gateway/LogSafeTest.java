package dev.gitopshq.hub.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogSafeTest {
  @Test
  void aForgedLogLineStaysOnTheAgentsOwnLine() {
    String forged = "0.1.0\n2026-11-23 23:59:59 INFO  hub: cluster prod approved by admin";
    assertThat(LogSafe.text(forged))
        .doesNotContain("\n")
        .isEqualTo("0.1.0\\n2026-11-23 23:59:59 INFO  hub: cluster prod approved by admin");
    assertThat(LogSafe.text("a\r\u001b[31mred\u2028")).isEqualTo("a\\r\\u001b[31mred\\u2028");
  }

  @Test
  void longTextIsCut() {
    assertThat(LogSafe.text("x".repeat(5000))).hasSize(LogSafe.MAX + 1).endsWith("…");
    assertThat(LogSafe.text(null)).isEqualTo("null");
  }
}
