package dev.gitopshq.activities.render;

import static dev.gitopshq.activities.render.Fixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Charts that attack the renderer: a template that allocates without bound, one that loops forever,
 * one that calls {@code lookup} through {@code tpl}. Each fails alone, naming the chart and the
 * limit; its worker process is killed and replaced; renders beside it and after it go on.
 */
@Tag("integration")
class RenderWorkersTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A ConfigMap whose data.x is what the expression prints. */
  private static String configMap(String expression) {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\ndata:\n  x: "
        + expression
        + "\n";
  }

  private static final String FINE = configMap("\"fine\"");

  /** Doubles a string until memory runs out. */
  private static final String ALLOCATES =
      configMap(
          "{{ $s := \"0123456789abcdef\" }}{{ range until 64 }}{{ $s = printf \"%s%s\" $s $s"
              + " }}{{ end }}{{ len $s | quote }}");

  /** 10^16 iterations of nothing: little memory (80 KB per until), only time. */
  private static final String LOOPS =
      configMap(
          "{{ range until 10000 }}{{ range until 10000 }}{{ range until 10000 }}{{ range until"
              + " 10000 }}{{ end }}{{ end }}{{ end }}{{ end }}\"never\"");

  private RenderWorkers workers;

  @BeforeEach
  void pool() {
    workers =
        new RenderWorkers(
            RenderWorkers.Config.fromEnvironment()
                .withWorkers(2, 1000)
                .with(Duration.ofSeconds(3), 128L << 20, 16 << 20));
  }

  @AfterEach
  void close() {
    workers.close();
  }

  private record Probe(Unit unit, byte[] chart) {}

  private static Probe probe(String service, String template) {
    byte[] chart =
        TarGz.create()
            .file(
                service + "/Chart.yaml", "apiVersion: v2\nname: " + service + "\nversion: 0.1.0\n")
            .file(service + "/templates/probe.yaml", template)
            .build();
    Unit unit =
        Fixtures.project()
            .environment("production", "{{ .tenant }}", cluster("eu-1"))
            .tenants("acme")
            .workload(service, "{}", ChartArchive.sha256(chart))
            .plan()
            .get(0);
    return new Probe(unit, chart);
  }

  private SortedMap<String, byte[]> render(Probe p) {
    return new Renderer(workers).render(p.unit(), d -> p.chart());
  }

  private void assertStillRenders() {
    SortedMap<String, byte[]> files = render(probe("fine", FINE));
    assertThat(new String(files.get("configmap-probe.yaml"), StandardCharsets.UTF_8))
        .contains("x: \"fine\"");
  }

  @Test
  void aTemplateThatAllocatesWithoutBoundFailsAloneNamingTheChartAndTheMemoryLimit() {
    assertStillRenders();
    List<Long> before = workers.pids();

    Probe hog = probe("hog", ALLOCATES);
    assertThatThrownBy(() -> render(hog))
        .isInstanceOf(RenderException.class)
        .hasMessageStartingWith("cannot render hog for tenant acme in production")
        .hasMessageContaining("chart " + hog.unit().chart() + " " + hog.unit().chartVersion())
        .hasMessageContaining("more than the 128 MiB memory limit of a render worker");

    // The worker that rendered it is gone; a new one takes the next render.
    assertThat(workers.pids()).doesNotContainAnyElementsOf(before);
    assertStillRenders();
  }

  @Test
  void aTemplateThatLoopsForeverFailsAtTheDeadlineAndItsWorkerIsKilled() {
    assertStillRenders();
    long start = System.nanoTime();

    Probe spin = probe("spin", LOOPS);
    assertThatThrownBy(() -> render(spin))
        .isInstanceOf(RenderException.class)
        .hasMessageStartingWith("cannot render spin for tenant acme in production")
        .hasMessageContaining("chart " + spin.unit().chart() + " " + spin.unit().chartVersion())
        .hasMessageContaining("did not finish within the 3 s deadline")
        .hasMessageContaining("killed");

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(8));
    assertStillRenders();
    // No process is left spinning: the pool holds only the worker of the last render.
    assertThat(workers.pids()).hasSize(1);
  }

  @Test
  void otherRendersGoOnWhileRunawayChartsAreKilled() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      Future<?> spin = pool.submit(() -> render(probe("spin", LOOPS)));
      Future<?> hog = pool.submit(() -> render(probe("hog", ALLOCATES)));
      // Two workers: the fine renders wait for one of them to be free, at most the deadline.
      Future<Integer> fine =
          pool.submit(
              () -> {
                int n = 0;
                for (int i = 0; i < 5; i++) {
                  n += render(probe("fine", FINE)).size();
                }
                return n;
              });
      assertThatThrownBy(() -> spin.get(30, TimeUnit.SECONDS)).hasMessageContaining("deadline");
      assertThatThrownBy(() -> hog.get(30, TimeUnit.SECONDS)).hasMessageContaining("memory limit");
      assertThat(fine.get(30, TimeUnit.SECONDS)).isEqualTo(5);
    } finally {
      pool.shutdownNow();
    }
    assertStillRenders();
  }

  @Test
  void anUploadThatLoopsOrAllocatesIsRefusedNamingTheLimit() {
    // Uploads are checked on the process's shared pool (30 s, 256 MiB by default): the
    // allocating chart is enough to show the refusal names the limit.
    assertThatThrownBy(() -> ChartArchive.inspect(probe("hog", ALLOCATES).chart()))
        .isInstanceOf(InvalidChartException.class)
        .hasMessageContaining("memory limit of a render worker");
    assertThat(ChartArchive.inspect(probe("fine", FINE).chart())).isNotNull();
  }

  @Test
  void aWorkerIsReplacedAfterItsRenders() {
    workers.close();
    workers = new RenderWorkers(RenderWorkers.Config.fromEnvironment().withWorkers(1, 3));
    assertStillRenders();
    List<Long> first = workers.pids();
    assertStillRenders();
    assertStillRenders();
    assertStillRenders();
    assertThat(first).hasSize(1);
    assertThat(workers.pids()).hasSize(1).doesNotContainAnyElementsOf(first);
  }

  /**
   * A worker whose hub is gone (nobody to kill it) still ends a render that loops, at its own
   * deadline.
   */
  @Test
  void aWorkerEndsARenderPastItsOwnDeadlineWhenNoHubKillsIt() throws Exception {
    Process worker =
        new ProcessBuilder(
                RenderWorkers.Config.fromEnvironment().binary().toString(), "-deadline", "500ms")
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    try (DataOutputStream in = new DataOutputStream(worker.getOutputStream())) {
      byte[] request =
          JSON.writeValueAsBytes(
              Map.of(
                  "chart",
                  probe("spin", LOOPS).chart(),
                  "name",
                  "spin",
                  "namespace",
                  "acme",
                  "values",
                  Map.of()));
      in.writeInt(request.length);
      in.write(request);
      in.flush();
      assertThat(worker.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(worker.exitValue()).isEqualTo(RenderWorkers.EXIT_DEADLINE);
    } finally {
      worker.destroyForcibly();
    }
  }

  /**
   * lookup through tpl (which the hub's scan of templates cannot see) finds nothing: the worker has
   * no Kubernetes client, whatever its environment names. Run here with KUBECONFIG, ~/.kube/config
   * and the in-cluster variables all pointing at a listening socket, which must see no connection.
   */
  @Test
  void lookupThroughTplFindsNothingAndDialsNoCluster(@TempDir Path dir) throws Exception {
    byte[] chart =
        TarGz.create()
            .file("sneaky/Chart.yaml", "apiVersion: v2\nname: sneaky\nversion: 0.1.0\n")
            .file(
                "sneaky/files/x.txt",
                "{{ lookup \"v1\" \"Secret\" \"kube-system\" \"\" | toJson }}|{{ lookup \"v1\""
                    + " \"Namespace\" \"\" \"\" | toJson }}")
            .file(
                "sneaky/templates/cm.yaml",
                configMap("{{ tpl (.Files.Get \"files/x.txt\") . | quote }}"))
            .build();
    assertThat(ChartArchive.lookupUse(chart)).isNull(); // the scan does not see it

    AtomicInteger connections = new AtomicInteger();
    try (ServerSocket api = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread accept =
          new Thread(
              () -> {
                while (!api.isClosed()) {
                  try (Socket s = api.accept()) {
                    connections.incrementAndGet();
                  } catch (java.io.IOException e) {
                    return;
                  }
                }
              });
      accept.setDaemon(true);
      accept.start();
      String kubeconfig =
          "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server:"
              + " http://127.0.0.1:"
              + api.getLocalPort()
              + "\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n"
              + "current-context: c\nusers:\n- name: u\n  user:\n    token: t\n";
      Path config = Files.writeString(dir.resolve("kubeconfig"), kubeconfig);
      Files.createDirectories(dir.resolve(".kube"));
      Files.writeString(dir.resolve(".kube/config"), kubeconfig);

      // The worker itself, given an environment that names the listening cluster.
      ProcessBuilder pb =
          new ProcessBuilder(RenderWorkers.Config.fromEnvironment().binary().toString());
      pb.environment().put("KUBECONFIG", config.toString());
      pb.environment().put("HOME", dir.toString());
      pb.environment().put("KUBERNETES_SERVICE_HOST", "127.0.0.1");
      pb.environment().put("KUBERNETES_SERVICE_PORT", String.valueOf(api.getLocalPort()));
      Process worker = pb.redirectError(ProcessBuilder.Redirect.DISCARD).start();
      JsonNode answer;
      try (DataOutputStream in = new DataOutputStream(worker.getOutputStream());
          DataInputStream out = new DataInputStream(worker.getInputStream())) {
        byte[] request =
            JSON.writeValueAsBytes(
                Map.of("chart", chart, "name", "sneaky", "namespace", "acme", "values", Map.of()));
        in.writeInt(request.length);
        in.write(request);
        in.flush();
        answer = JSON.readTree(out.readNBytes(out.readInt()));
      } finally {
        worker.destroy();
      }
      assertThat(answer.has("error")).as(answer.toString()).isFalse();
      assertThat(answer.get("manifest").asText()).contains("x: \"{}|{}\"");

      // And through the hub's renderer.
      Unit unit =
          Fixtures.project()
              .environment("production", "{{ .tenant }}", cluster("eu-1"))
              .tenants("acme")
              .workload("sneaky", "{}", ChartArchive.sha256(chart))
              .plan()
              .get(0);
      SortedMap<String, byte[]> files = new Renderer(workers).render(unit, d -> chart);
      assertThat(new String(files.get("configmap-probe.yaml"), StandardCharsets.UTF_8))
          .contains("x: \"{}|{}\"");
      assertThat(ChartArchive.inspect(chart)).isNotNull();

      Thread.sleep(200);
      assertThat(connections.get()).as("connections to the cluster the environment names").isZero();
    }
  }
}
