package dev.gitopshq.agent.logs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.LogStreamEnded;
import dev.gitopshq.agent.v1.OpenLogStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class LogStreamsTest {
  final List<AgentMessage> sent = new CopyOnWriteArrayList<>();

  LogStreams streams(boolean enabled, List<String> allowed) {
    return new LogStreams(
        () -> {
          throw new AssertionError("the cluster must not be asked");
        },
        ns -> allowed.isEmpty() || allowed.contains(ns),
        enabled,
        new LogStreams.Outbound() {
          @Override
          public boolean send(AgentMessage message) {
            sent.add(message);
            return true;
          }

          @Override
          public boolean writable() {
            return true;
          }
        },
        2,
        Duration.ofSeconds(1));
  }

  static OpenLogStream open(String id, String ns) {
    return OpenLogStream.newBuilder()
        .setSessionId(id)
        .setNamespace(ns)
        .setPod("web")
        .setInitialCreditBytes(1024)
        .build();
  }

  @Test
  void refusesWithoutDiagnosticsReadBeforeTouchingTheCluster() {
    streams(false, List.of()).open(open("s1", "demo"));
    assertThat(sent)
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.getLogStreamEnded().getReason())
                  .isEqualTo(LogStreamEnded.Reason.FORBIDDEN);
              assertThat(m.getLogStreamEnded().getMessage()).contains("diagnostics.read");
            });
  }

  @Test
  void refusesANamespaceOutsideAllowedNamespacesEvenIfTheHubAsked() {
    streams(true, List.of("payments")).open(open("s1", "demo"));
    assertThat(sent)
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.getLogStreamEnded().getSessionId()).isEqualTo("s1");
              assertThat(m.getLogStreamEnded().getReason())
                  .isEqualTo(LogStreamEnded.Reason.FORBIDDEN);
              assertThat(m.getLogStreamEnded().getMessage())
                  .contains("diagnostics.allowedNamespaces");
            });
  }
}
