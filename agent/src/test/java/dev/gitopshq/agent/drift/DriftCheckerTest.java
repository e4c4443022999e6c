package dev.gitopshq.agent.drift;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Timestamp;
import dev.gitopshq.agent.v1.CheckDrift;
import dev.gitopshq.agent.v1.DesiredObject;
import dev.gitopshq.agent.v1.DriftObjectResult;
import dev.gitopshq.agent.v1.DriftReport;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * What the agent reports when it cannot compare: every object FAILED with a reason that says what
 * happened (never "the API server answered" when no API server answered).
 */
class DriftCheckerTest {
  static DesiredObject deployment(String namespace) {
    return DesiredObject.newBuilder()
        .setGroup("apps")
        .setVersion("v1")
        .setKind("Deployment")
        .setNamespace(namespace)
        .setName("web")
        .setManifest(
            "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\""
                + (namespace.isEmpty() ? "" : ",\"namespace\":\"" + namespace + "\"")
                + "}}")
        .build();
  }

  @Test
  void aComparisonTheClientCouldNotMakeFailsWithWhatHappenedNotAnInventedAnswer() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    try (KubernetesClient client =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder()
                    .withMasterUrl("http://127.0.0.1:" + closed)
                    .withRequestRetryBackoffLimit(0)
                    .withConnectionTimeout(500)
                    .withRequestTimeout(500)
                    .build())
            .build()) {
      DriftReport report =
          new DriftChecker(() -> client, "gitopshq-agent", Clock.systemUTC())
              .check(
                  CheckDrift.newBuilder()
                      .setCheckId("k1")
                      .addObjects(deployment("shop"))
                      .addObjects(deployment(""))
                      .build());
      assertThat(report.getObjectsList()).hasSize(2);
      for (DriftObjectResult r : report.getObjectsList()) {
        assertThat(r.getState()).isEqualTo(DriftObjectResult.State.FAILED);
        assertThat(r.getError()).as(r.getError()).startsWith("cannot compare: ");
      }
      // The object without a namespace: the client refused it, as on `make run`.
      assertThat(report.getObjects(1).getError()).contains("namespace not specified");
    }
  }

  @Test
  void objectsLeftWhenTheDeadlinePassedFailWithThatReason() {
    Instant past = Instant.now().minusSeconds(1);
    DriftReport report =
        new DriftChecker(
                () -> {
                  throw new AssertionError("no comparison after the deadline");
                },
                "gitopshq-agent",
                Clock.systemUTC())
            .check(
                CheckDrift.newBuilder()
                    .setCheckId("k1")
                    .setDeadline(Timestamp.newBuilder().setSeconds(past.getEpochSecond()))
                    .addObjects(deployment("shop"))
                    .build());
    assertThat(report.getObjects(0).getState()).isEqualTo(DriftObjectResult.State.FAILED);
    assertThat(report.getObjects(0).getError()).isEqualTo("the check's deadline passed");
  }
}
