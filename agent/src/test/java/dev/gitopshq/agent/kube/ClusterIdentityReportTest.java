package dev.gitopshq.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.gitopshq.agent.v1.ClusterIdentity;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The identity the agent reports for hub acceptance, against a fake API server over HTTP. */
class ClusterIdentityReportTest {
  private HttpServer api;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private volatile int nodesStatus = 200;

  @BeforeEach
  void fakeApiServer() throws IOException {
    api = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    api.createContext(
        "/version",
        ex -> answer(ex, 200, "{\"major\":\"1\",\"minor\":\"30\",\"gitVersion\":\"v1.30.2\"}"));
    api.createContext(
        "/api/v1/nodes",
        ex ->
            answer(
                ex,
                nodesStatus,
                nodesStatus != 200
                    ? "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                        + "\"reason\":\"Forbidden\",\"code\":403}"
                    : "{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"metadata\":"
                        + "{\"continue\":\"c1\",\"remainingItemCount\":4},"
                        + "\"items\":[{\"metadata\":{\"name\":\"node-1\"}}]}"));
    api.start();
  }

  @AfterEach
  void stop() {
    api.stop(0);
  }

  private void answer(HttpExchange ex, int status, String body) throws IOException {
    requests.add(ex.getRequestURI().toString());
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(status, b.length);
    ex.getResponseBody().write(b);
    ex.close();
  }

  private static KubernetesClient client(String url) {
    return new KubernetesClientBuilder()
        .withConfig(
            new ConfigBuilder()
                .withMasterUrl(url)
                .withRequestRetryBackoffLimit(0)
                .withConnectionTimeout(500)
                .withRequestTimeout(2000)
                .build())
        .build();
  }

  @Test
  void reportsTheApiServersHashNodeCountAndVersionButNeverItsAddress() {
    String url = "http://127.0.0.1:" + api.getAddress().getPort();
    try (KubernetesClient kube = client(url)) {
      ClusterIdentity id = new ClusterIdentityReport(() -> kube).get();

      assertThat(id.getKubernetesVersion()).isEqualTo("v1.30.2");
      assertThat(id.getNodeCount()).as("one listed, four more counted by the server").isEqualTo(5);
      assertThat(id.getApiServerUrlSha256())
          .matches("[0-9a-f]{64}")
          .isEqualTo(ClusterIdentityReport.sha256(kube.getMasterUrl().toString()));
      assertThat(id.toString()).doesNotContain("127.0.0.1");
      assertThat(requests)
          .as("a large cluster is not listed in full on every reconnect")
          .anySatisfy(r -> assertThat(r).startsWith("/api/v1/nodes").contains("limit=1"))
          .noneSatisfy(r -> assertThat(r).isEqualTo("/api/v1/nodes"));
    }
  }

  @Test
  void leavesOutTheNodeCountWhenTheAgentMayNotListNodes() {
    nodesStatus = 403;
    try (KubernetesClient kube = client("http://127.0.0.1:" + api.getAddress().getPort())) {
      ClusterIdentity id = new ClusterIdentityReport(() -> kube).get();

      assertThat(id.getNodeCount()).isZero();
      assertThat(id.getKubernetesVersion()).isEqualTo("v1.30.2");
      assertThat(id.getApiServerUrlSha256()).hasSize(64);
    }
  }

  @Test
  void reportsTheLabelsTheChartSetsEvenWhenTheApiServerIsUnreachable() throws IOException {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    try (KubernetesClient kube = client("http://127.0.0.1:" + closed)) {
      ClusterIdentity id =
          new ClusterIdentityReport(() -> kube, Map.of("tier", "production", "team", "shop"))
              .read();

      assertThat(id.getLabelsMap())
          .containsOnly(entry("tier", "production"), entry("team", "shop"));
    }
  }

  @Test
  void anUnreachableApiServerStillYieldsAReportWithItsHash() throws IOException {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    try (KubernetesClient kube = client("http://127.0.0.1:" + closed)) {
      ClusterIdentity id = new ClusterIdentityReport(() -> kube).read();

      assertThat(id.getKubernetesVersion()).isEmpty();
      assertThat(id.getNodeCount()).isZero();
      assertThat(id.getApiServerUrlSha256())
          .isEqualTo(ClusterIdentityReport.sha256(kube.getMasterUrl().toString()));
    }
  }

  @Test
  void aSlowApiServerDoesNotHoldUpRegisterOrHello() {
    CountDownLatch release = new CountDownLatch(1);
    try (KubernetesClient kube = client("http://127.0.0.1:" + api.getAddress().getPort())) {
      ClusterIdentityReport report =
          new ClusterIdentityReport(
              () -> {
                try {
                  release.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                return kube;
              });
      long started = System.nanoTime();
      assertThat(report.get()).as("nothing read yet: no identity is sent").isNull();
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isLessThan(ClusterIdentityReport.WAIT.plusSeconds(2));

      release.countDown();
      assertThat(report.get().getKubernetesVersion()).isEqualTo("v1.30.2");
    }
  }

  @Test
  void hashesTheUrlWithSha256() {
    // printf 'https://10.0.0.1:6443/' | sha256sum
    assertThat(ClusterIdentityReport.sha256("https://10.0.0.1:6443/"))
        .isEqualTo("79c1fa9d4a5b5c5172314dc0f1a85b5ded2b7b3a64e2fd8be7364ce6f6703ed5");
  }
}
