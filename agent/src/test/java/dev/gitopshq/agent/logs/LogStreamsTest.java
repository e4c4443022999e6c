package dev.gitopshq.agent.logs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.LogStreamEnded;
import dev.gitopshq.agent.v1.OpenLogStream;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
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

  @Test
  void theKubernetesClientsErrorReachesTheHubWithoutTheApiServersUrl() {
    Status status =
        new StatusBuilder()
            .withCode(500)
            .withMessage(
                "Get \"https://172.18.0.2:10250/containerLogs/demo/web/app\": dial tcp"
                    + " 172.18.0.2:10250: connect: connection refused")
            .build();
    LogStreams streams =
        new LogStreams(
            () -> {
              throw new KubernetesClientException(
                  "Failure executing: GET at: https://10.96.0.1:6443/api/v1/namespaces/demo/pods/"
                      + "web/log. Message: "
                      + status.getMessage(),
                  500,
                  status);
            },
            ns -> true,
            true,
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
    streams.open(open("s1", "demo"));
    await().atMost(Duration.ofSeconds(5)).until(() -> !sent.isEmpty());
    LogStreamEnded ended = sent.get(0).getLogStreamEnded();
    assertThat(ended.getReason()).isEqualTo(LogStreamEnded.Reason.FAILED);
    assertThat(ended.getMessage())
        .doesNotContain("10.96.0.1")
        .doesNotContain("6443")
        .doesNotContain("/api/v1")
        .doesNotContain("172.18.0.2")
        .contains("500")
        .contains("connection refused");
  }
}
