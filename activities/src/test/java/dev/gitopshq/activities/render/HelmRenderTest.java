package dev.gitopshq.activities.render;

import static dev.gitopshq.activities.render.Fixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HelmRenderTest {
  private static byte[] webapp;
  private static String digest;

  @TempDir Path work;

  @BeforeAll
  static void packageChart() {
    webapp = TarGz.webapp().build();
    digest = ChartArchive.sha256(webapp);
  }

  private static ChartSource charts() {
    return d -> d.equals(digest) ? webapp : null;
  }

  /** A project whose production web units merge workload, tenant and cluster values. */
  private static Fixtures shop() {
    return Fixtures.project()
        .environment(
            "production",
            "{{ .tenant }}-{{ .environment }}",
            cluster(
                "eu-1", "{'resources':{'limits':{'memory':'1Gi'}},'env':{'REGION':'${REGION}'}}"))
        .tenants("acme", "globex")
        .workload(
            "web",
            "{'image':{'tag':'3.0.0'},'replicaCount':2,'env':{'LOG_LEVEL':'warn','DB':'${DB_HOST}'}}",
            digest)
        .values(
            "web",
            "acme",
            "production",
            "{'ingress':{'enabled':true,'host':'acme.example.com'},'replicaCount':4}")
        .variable("org", null, "DB_HOST", "db.internal")
        .variable("environment", "production", "REGION", "eu");
  }

  private static Unit unit(List<Unit> units, String path) {
    return units.stream().filter(u -> u.path().equals(path)).findFirst().orElseThrow();
  }

  /** The documents of a helm template output, split the way helm itself separates them. */
  private static List<String> documents(String output) {
    return Arrays.stream(output.split("(?m)^---\\n")).filter(d -> !d.isBlank()).toList();
  }

  private static List<String> contents(SortedMap<String, byte[]> files) {
    return files.values().stream().map(b -> new String(b, StandardCharsets.UTF_8)).toList();
  }

  @Test
  void rendersWhatHelmTemplateRendersForTheMergedValues() throws Exception {
    Unit acme = unit(shop().plan(), "rendered/production/eu-1/acme/web");
    Map<String, Object> expectedValues =
        Fixtures.json(
            """
        {'image':{'tag':'3.0.0'},'replicaCount':4,'env':{'LOG_LEVEL':'warn','DB':'db.internal','REGION':'eu'},
         'ingress':{'enabled':true,'host':'acme.example.com'},'resources':{'limits':{'memory':'1Gi'}}}""");
    assertThat(acme.values()).isEqualTo(expectedValues);

    SortedMap<String, byte[]> files = new Renderer(work).render(acme, charts());

    Path valuesFile =
        Files.writeString(
            work.resolve("expected-values.json"), Fixtures.JSON.writeValueAsString(expectedValues));
    String helm =
        new Helm(TarGz.webappDir())
            .template()
            .withName("web")
            .withNamespace("acme-production")
            .withValuesFile(valuesFile)
            .call();
    assertThat(files.keySet())
        .containsExactly(
            "configmap-web-env.yaml",
            "deployment-web.yaml",
            "ingress-web.yaml",
            "service-web.yaml");
    assertThat(contents(files)).containsExactlyInAnyOrderElementsOf(documents(helm));
    String deployment = new String(files.get("deployment-web.yaml"), StandardCharsets.UTF_8);
    assertThat(deployment)
        .startsWith("# Source: webapp/templates/deployment.yaml\n")
        .contains(
            "replicas: 4",
            "image: \"ghcr.io/example/webapp:3.0.0\"",
            "memory: 1Gi",
            "namespace: acme-production");
    assertThat(new String(files.get("configmap-web-env.yaml"), StandardCharsets.UTF_8))
        .contains("DB: \"db.internal\"", "REGION: \"eu\"", "LOG_LEVEL: \"warn\"");
  }

  @Test
  void leavesOutWhatTheChartDoesNotRenderForATenant() {
    Unit globex = unit(shop().plan(), "rendered/production/eu-1/globex/web");

    SortedMap<String, byte[]> files = new Renderer(work).render(globex, charts());

    assertThat(files.keySet())
        .containsExactly("configmap-web-env.yaml", "deployment-web.yaml", "service-web.yaml");
    assertThat(new String(files.get("deployment-web.yaml"), StandardCharsets.UTF_8))
        .contains("replicas: 2");
  }

  @Test
  void aNullValueRemovesTheChartsDefault() {
    Fixtures f =
        Fixtures.project()
            .environment("production", "{{ .tenant }}", cluster("eu-1"))
            .tenants("acme")
            .workload("web", "{'resources':{'requests':null}}", digest);

    SortedMap<String, byte[]> files = new Renderer(work).render(f.plan().get(0), charts());

    String deployment = new String(files.get("deployment-web.yaml"), StandardCharsets.UTF_8);
    assertThat(deployment).contains("limits:").doesNotContain("requests:", "cpu: 100m");
  }

  @Test
  void everyCallIntoHelmIsCountedSoOperatorsKnowWhenToRestart() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    Metrics.addRegistry(meters);
    try {
      Unit acme = unit(shop().plan(), "rendered/production/eu-1/acme/web");
      Fixtures failing =
          Fixtures.project()
              .environment("production", "{{ .tenant }}", cluster("eu-1"))
              .tenants("acme")
              .workload("web", "{'ingress':{'enabled':true}}", digest);
      Renderer renderer = new Renderer(work);

      renderer.render(acme, charts());
      renderer.render(acme, charts());
      assertThatThrownBy(() -> renderer.render(failing.plan().get(0), charts()))
          .isInstanceOf(RenderException.class);

      // A failed render went into Go as well and is counted with the others.
      assertThat(meters.get("gitopshq.helm.template.calls").counter().count()).isEqualTo(3);
    } finally {
      Metrics.removeRegistry(meters);
    }
  }

  @Test
  void aHelmErrorNamesTheUnitAndHelmsMessage() {
    Fixtures f =
        Fixtures.project()
            .environment("production", "{{ .tenant }}", cluster("eu-1"))
            .tenants("acme")
            .workload("web", "{'ingress':{'enabled':true}}", digest);

    assertThatThrownBy(() -> new Renderer(work).render(f.plan().get(0), charts()))
        .isInstanceOf(RenderException.class)
        .hasMessageStartingWith(
            "cannot render web for tenant acme in production on cluster eu-1: Helm: ")
        .hasMessageContaining("ingress.host is required when ingress.enabled is true")
        .hasMessageNotContaining("--debug");
  }

  @Test
  void refusesAMissingOrTamperedChart() {
    Unit web = unit(shop().plan(), "rendered/production/eu-1/globex/web");

    assertThatThrownBy(() -> new Renderer(work).render(web, d -> null))
        .isInstanceOf(RenderException.class)
        .hasMessage(
            "cannot render web for tenant globex in production on cluster eu-1: chart webapp 1.2.0"
                + " (sha256 "
                + digest
                + ") is not stored");
    byte[] tampered = TarGz.webappWith("webapp/values.yaml", "replicaCount: 9\n");
    assertThatThrownBy(() -> new Renderer(work).render(web, d -> tampered))
        .isInstanceOf(RenderException.class)
        .hasMessageContaining("does not match its digest");
  }

  @Test
  void rendersShareADirectoryOneAtATimeAndLeaveNoValuesBehind() throws Exception {
    Path root = work.resolve("renders");
    List<Path> seen = new CopyOnWriteArrayList<>();
    List<List<String>> contentsSeen = new CopyOnWriteArrayList<>();
    Renderer renderer =
        new Renderer(
            root,
            dir -> {
              seen.add(dir);
              try (var list = Files.list(dir)) {
                contentsSeen.add(list.map(p -> p.getFileName().toString()).sorted().toList());
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    List<Unit> units = shop().plan();
    Unit failing =
        Fixtures.project()
            .environment("production", "{{ .tenant }}", cluster("eu-1"))
            .tenants("acme")
            .workload("web", "{'ingress':{'enabled':true}}", digest)
            .plan()
            .get(0);

    renderer.render(units.get(0), charts());
    renderer.render(units.get(1), charts());
    assertThatThrownBy(() -> renderer.render(failing, charts()))
        .isInstanceOf(RenderException.class);

    // One render at a time: one directory, under the root, with the chart and the render's values
    // while Helm runs in it; afterwards only the chart is left (the values may hold secrets).
    assertThat(seen).hasSize(3).allSatisfy(dir -> assertThat(dir.getParent()).isEqualTo(root));
    assertThat(new java.util.HashSet<>(seen)).hasSize(1);
    assertThat(contentsSeen).containsOnly(List.of("chart.tgz", "values.json"));
    try (var left = Files.list(seen.get(0))) {
      assertThat(left.map(p -> p.getFileName().toString())).containsExactly("chart.tgz");
    }
    // A directory removed from outside (a tmp cleaner) is replaced, not failed on.
    Workdirs.delete(seen.get(0));
    assertThat(renderer.render(units.get(0), charts())).isNotEmpty();
    assertThat(seen).hasSize(4);
    assertThat(seen.get(3)).isNotEqualTo(seen.get(0));
    // Renders at once get directories of their own.
    List<Path> parallel = new CopyOnWriteArrayList<>();
    java.util.concurrent.CountDownLatch both = new java.util.concurrent.CountDownLatch(2);
    Renderer meeting =
        new Renderer(
            work.resolve("parallel"),
            dir -> {
              parallel.add(dir);
              both.countDown();
              try {
                both.await(10, java.util.concurrent.TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    var pool = java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      var a = pool.submit(() -> meeting.render(units.get(0), charts()));
      var b = pool.submit(() -> meeting.render(units.get(1), charts()));
      assertThat(a.get(30, java.util.concurrent.TimeUnit.SECONDS)).isNotEmpty();
      assertThat(b.get(30, java.util.concurrent.TimeUnit.SECONDS)).isNotEmpty();
    } finally {
      pool.shutdownNow();
    }
    assertThat(parallel).hasSize(2).doesNotHaveDuplicates();
  }

  @Test
  void parallelRendersGiveTheSameFilesAsSequentialOnes() throws Exception {
    Fixtures f =
        Fixtures.project()
            .environment("production", "{{ .tenant }}-{{ .environment }}", cluster("eu-1"))
            .workload("web", "{'replicaCount':'${REPLICAS}','env':{'TENANT':'${TENANT}'}}", digest);
    for (int i = 1; i <= 8; i++) {
      String tenant = "tenant-" + i;
      f.tenants(tenant)
          .variable("tenant", tenant, "REPLICAS", String.valueOf(i))
          .variable("tenant", tenant, "TENANT", tenant);
      if (i % 2 == 0) {
        f.values(
            "web",
            tenant,
            "production",
            "{'ingress':{'enabled':true,'host':'" + tenant + ".example.com'}}");
      }
    }
    List<Unit> units = f.plan();
    assertThat(units).hasSize(8);
    Renderer renderer = new Renderer(work.resolve("renders"));

    List<Map<String, String>> sequential = new ArrayList<>();
    for (Unit u : units) {
      sequential.add(text(renderer.render(u, charts())));
    }
    List<Map<String, String>> parallel = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      for (int round = 0; round < 3; round++) {
        List<Callable<Map<String, String>>> tasks = new ArrayList<>();
        for (Unit u : units) {
          tasks.add(() -> text(renderer.render(u, charts())));
        }
        parallel.clear();
        for (Future<Map<String, String>> result : pool.invokeAll(tasks)) {
          parallel.add(result.get());
        }
        assertThat(parallel).isEqualTo(sequential);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(sequential.get(3).get("deployment-web.yaml")).contains("replicas: 4");
    assertThat(sequential.get(3)).containsKey("ingress-web.yaml");
    assertThat(sequential.get(2)).doesNotContainKey("ingress-web.yaml");
  }

  @Test
  void namesFilesByKindAndNameAndNumbersClashes() {
    byte[] chart =
        TarGz.create()
            .file("odd/Chart.yaml", "apiVersion: v2\nname: odd\nversion: 0.1.0\n")
            .file(
                "odd/templates/objects.yaml",
                """
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: same
              namespace: acme
            ---
            # only a comment
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: same
              labels:
                n: two
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: same
              labels:
                n: three
            ---
            apiVersion: example.com/v1
            kind: Odd_Thing
            metadata:
              name: My.Object:1
            """)
            .build();
    String chartDigest = ChartArchive.sha256(chart);
    Unit unit =
        Fixtures.project()
            .environment("production", "{{ .tenant }}", cluster("eu-1"))
            .tenants("acme")
            .workload("odd", chartDigest, Map.of("example.com/Odd_Thing", "Namespaced"))
            .plan()
            .get(0);

    SortedMap<String, byte[]> files = new Renderer(work).render(unit, d -> chart);

    assertThat(files.keySet())
        .containsExactly(
            "configmap-same-2.yaml",
            "configmap-same-3.yaml",
            "configmap-same.yaml",
            "odd-thing-my.object-1.yaml");
    assertThat(new String(files.get("configmap-same.yaml"), StandardCharsets.UTF_8))
        .contains("namespace: acme");
    assertThat(new String(files.get("configmap-same-2.yaml"), StandardCharsets.UTF_8))
        .contains("n: two", "namespace: acme");
    assertThat(new String(files.get("configmap-same-3.yaml"), StandardCharsets.UTF_8))
        .contains("n: three", "namespace: acme");
  }

  private static Map<String, String> text(SortedMap<String, byte[]> files) {
    return files.entrySet().stream()
        .collect(
            Collectors.toMap(
                Map.Entry::getKey,
                e -> new String(e.getValue(), StandardCharsets.UTF_8),
                (a, b) -> a,
                java.util.TreeMap::new));
  }

  /** A one-template chart and the helm unit that renders it. */
  private record Probe(Unit unit, byte[] chart) {
    String path() {
      return unit.path();
    }
  }

  private static Probe oneTemplate(String template) {
    byte[] chart = probeChart(template);
    return new Probe(
        Fixtures.project()
            .environment("production", "{{ .tenant }}", cluster("eu-1"))
            .tenants("acme")
            .workload("probe", "{}", ChartArchive.sha256(chart))
            .plan()
            .get(0),
        chart);
  }

  private static SortedMap<String, byte[]> render(Renderer r, Probe p) {
    return r.render(p.unit(), d -> p.chart());
  }

  private static byte[] probeChart(String template) {
    return TarGz.create()
        .file("probe/Chart.yaml", "apiVersion: v2\nname: probe\nversion: 0.1.0\n")
        .file("probe/templates/probe.yaml", template)
        .build();
  }

  @Test
  void aChartThatCallsLookupIsRefusedSoNoRenderReadsACluster() {
    String template =
        """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: looked-up
        data:
          secrets: {{ (lookup "v1" "Secret" "kube-system" "") | toJson | quote }}
        """;
    Probe probe = oneTemplate(template);
    assertThatThrownBy(() -> render(new Renderer(work), probe))
        .isInstanceOf(RenderException.class)
        .hasMessageContaining("for tenant acme in production")
        .hasMessageContaining("probe/templates/probe.yaml calls lookup")
        .hasMessageContaining("charts may not use lookup");
    // At upload too, and in a subchart.
    assertThatThrownBy(() -> ChartArchive.inspect(probe.chart()))
        .isInstanceOf(InvalidChartException.class)
        .hasMessageContaining("calls lookup");
    byte[] parent =
        TarGz.create()
            .file("parent/Chart.yaml", "apiVersion: v2\nname: parent\nversion: 0.1.0\n")
            .file("parent/charts/probe-0.1.0.tgz", probe.chart())
            .build();
    assertThat(ChartArchive.lookupUse(parent))
        .isEqualTo("parent/charts/probe-0.1.0.tgz!probe/templates/probe.yaml");
    // The word elsewhere is fine: a field, a variable, text outside actions.
    String harmless =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dns\ndata:\n  note: dns lookup\n"
            + "  v: {{ .Values.lookup | default \"x\" | quote }}\n";
    assertThat(ChartArchive.lookupUse(probeChart(harmless))).isNull();
  }

  @Test
  void helmIsToldWhenItsEnvironmentNamesACluster(@TempDir Path home) throws Exception {
    assertThat(HelmProcess.clusterSources(Map.of(), home)).isEmpty();
    java.nio.file.Files.createDirectories(home.resolve(".kube"));
    java.nio.file.Files.writeString(home.resolve(".kube/config"), "clusters: []\n");
    assertThat(HelmProcess.clusterSources(Map.of(), home)).hasSize(1);
    Path closed = home.resolve("no-cluster");
    java.nio.file.Files.writeString(
        closed, "clusters:\n- name: none\n  cluster:\n    server: http://127.0.0.1:1\n");
    assertThat(HelmProcess.clusterSources(Map.of("KUBECONFIG", closed.toString()), home)).isEmpty();
    Path real = home.resolve("real");
    java.nio.file.Files.writeString(
        real, "clusters:\n- name: prod\n  cluster:\n    server: https://10.0.0.1:6443\n");
    assertThat(HelmProcess.clusterSources(Map.of("KUBECONFIG", real.toString()), home))
        .containsExactly("KUBECONFIG " + real);
  }

  @Test
  void aRenderThatPrintsTooMuchIsRefusedNamingTheUnit() {
    String template =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  x: \"{{ range until"
            + " 20000 }}xxxxxxxxxx{{ end }}\"\n";
    Probe unit = oneTemplate(template);
    Renderer small =
        new Renderer(work, d -> {}, HelmLimits.of(java.time.Duration.ofSeconds(30), 100_000, 2));
    assertThatThrownBy(() -> render(small, unit))
        .isInstanceOf(RenderException.class)
        .hasMessageContaining("for tenant acme in production")
        .hasMessageContaining("more than the 100000");
    // The default limit takes it.
    assertThat(render(new Renderer(work), unit)).hasSize(1);
  }

  @Test
  void aRenderThatRunsOverItsTimeIsAbandonedAndHoldsItsSlotUntilHelmReturns()
      throws InterruptedException {
    String slow =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: slow\ndata:\n  x: \"{{ range until"
            + " 3000000 }}{{ sha256sum \"x\" | trunc 1 }}{{ end }}\"\n";
    Probe unit = oneTemplate(slow);
    HelmLimits tight = HelmLimits.of(java.time.Duration.ofMillis(200), 64 * 1024 * 1024, 1);
    Renderer renderer = new Renderer(work, d -> {}, tight);
    long start = System.nanoTime();
    assertThatThrownBy(() -> render(renderer, unit))
        .isInstanceOf(RenderException.class)
        .hasMessageContaining("for tenant acme in production")
        .hasMessageContaining("did not finish within");
    assertThat(java.time.Duration.ofNanos(System.nanoTime() - start))
        .isLessThan(java.time.Duration.ofSeconds(5));
    // The abandoned render still runs in Go and holds the only slot: the next render is refused
    // rather than queued behind it; once Helm returns, the slot is free again.
    String quick = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: quick\n";
    Probe next = oneTemplate(quick);
    assertThatThrownBy(() -> render(renderer, next)).hasMessageContaining("render slots are held");
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(120).toNanos();
    while (tight.permits().availablePermits() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(render(renderer, next)).hasSize(1);
  }

  /**
   * Go's handler takes SIGQUIT at the first render; the hub gives it back to the JVM after each
   * call, so an operator's {@code jcmd} (which asks with SIGQUIT) attaches to a hub that has
   * rendered, while the release's own SIGQUIT still goes to Go (no thread dump in the output).
   */
  @Test
  void jcmdAttachesToAJvmThatHasRenderedAndFreedHelmsGoroutines(@TempDir Path dir)
      throws Exception {
    Path chart = chartDir(dir, "probe", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\n");
    Path out = dir.resolve("probe.out");
    Process probe = probeJvm(HelmQuitProbe.class, out, chart.toString());
    try {
      awaitOutput(probe, out, "ready");
      // The goroutines were freed, and SIGQUIT is the JVM's again.
      assertThat(Files.readString(out)).contains("ready true true");

      Process jcmd =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                  Long.toString(probe.pid()),
                  "Thread.print")
              .redirectErrorStream(true)
              .start();
      String dump = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(jcmd.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      assertThat(jcmd.exitValue()).as(dump).isZero();
      assertThat(dump).contains("\"main\"", "HelmQuitProbe.main");
      // The release's signal reached Go's waiting goroutines, not the JVM's thread dump.
      assertThat(Files.readString(out)).doesNotContain("Full thread dump");
      assertThat(probe.isAlive()).isTrue();
    } finally {
      probe.getOutputStream().close();
      if (!probe.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
        probe.destroyForcibly();
      }
    }
    assertThat(probe.exitValue()).as(Files.readString(out)).isZero();
  }

  /**
   * Kubernetes stops a pod with SIGTERM, also while the hub renders: after the first render the
   * signal is the JVM's even while Helm runs in Go, so the hub shuts down at once (exit 143, its
   * shutdown hooks run) instead of losing the signal and being killed at the end of the grace
   * period.
   */
  @Test
  void sigtermDuringARenderStopsTheJvmGracefully(@TempDir Path dir) throws Exception {
    Path quick = chartDir(dir, "quick", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: q\n");
    Path slow =
        chartDir(
            dir,
            "slow",
            // ~10 s here, ten million small steps: far longer than the signal takes, on any
            // machine.
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\ndata:\n  x: \"{{ range until"
                + " 4000 }}{{ range until 2500 }}{{ sha256sum \"x\" | trunc 1 }}{{ end }}{{ end"
                + " }}\"\n");
    Path out = dir.resolve("probe.out");
    Process probe = probeJvm(HelmTermProbe.class, out, quick.toString(), slow.toString());
    try {
      awaitOutput(probe, out, "rendering slow");
      Thread.sleep(200);
      long signalled = System.nanoTime();
      probe.destroy(); // SIGTERM
      assertThat(probe.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      assertThat(probe.exitValue()).as(Files.readString(out)).isEqualTo(143);
      assertThat(Files.readString(out))
          .contains("shutdown hook ran")
          .doesNotContain("slow render finished");
      // Not after the render: that takes seconds.
      assertThat(java.time.Duration.ofNanos(System.nanoTime() - signalled))
          .isLessThan(java.time.Duration.ofSeconds(2));
    } finally {
      probe.destroyForcibly();
    }
  }

  /** A chart directory with one template. */
  private static Path chartDir(Path dir, String name, String template) throws Exception {
    Path chart = dir.resolve(name);
    Files.createDirectories(chart.resolve("templates"));
    Files.writeString(
        chart.resolve("Chart.yaml"), "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\n");
    Files.writeString(chart.resolve("templates/t.yaml"), template);
    return chart;
  }

  /**
   * A JVM of its own running {@code main} with this test's class path, its output in {@code out}.
   */
  private static Process probeJvm(Class<?> main, Path out, String... args) throws Exception {
    Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> cmd = new ArrayList<>(List.of(javaBin.toString(), "-Xmx128m"));
    cmd.add("--enable-native-access=ALL-UNNAMED");
    if (Runtime.version().feature() >= 24) {
      cmd.add("--sun-misc-unsafe-memory-access=allow");
    }
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
    cmd.addAll(Arrays.asList(args));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
  }

  private static void awaitOutput(Process probe, Path out, String text) throws Exception {
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(90).toNanos();
    while (!Files.readString(out).contains(text)) {
      assertThat(probe.isAlive()).as(Files.readString(out)).isTrue();
      assertThat(System.nanoTime())
          .as("the probe prints %s within 90 s", text)
          .isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  /**
   * helm-java leaves a goroutine waiting for SIGQUIT behind every template call; the hub frees them
   * with one SIGQUIT, but never while a Helm call runs, whose own wait would end it: the render in
   * Go keeps going and gives its whole output. Afterwards the signal goes out, Go (not the JVM)
   * takes it, and rendering goes on.
   */
  @Test
  void helmsLeftoverGoroutinesAreFreedOnlyWhileNoRenderRuns() throws Exception {
    String slow =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: slow\ndata:\n  x: \"{{ range until"
            + " 200000 }}{{ sha256sum \"x\" | trunc 1 }}{{ end }}\"\n";
    Probe unit = oneTemplate(slow);
    java.util.concurrent.CountDownLatch inGo = new java.util.concurrent.CountDownLatch(1);
    Renderer renderer = new Renderer(work, d -> inGo.countDown());
    assertThat(
            render(
                new Renderer(work),
                oneTemplate("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")))
        .hasSize(1);
    long before = HelmProcess.releases();
    var pool = java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      var running = pool.submit(() -> render(renderer, unit));
      assertThat(inGo.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      // Helm runs: no signal now.
      assertThat(HelmProcess.releaseGoroutines()).isFalse();
      SortedMap<String, byte[]> files = running.get(120, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(new String(files.values().iterator().next(), StandardCharsets.UTF_8))
          .hasSizeGreaterThan(200_000);
      assertThat(HelmProcess.releases()).isEqualTo(before);
    } finally {
      pool.shutdownNow();
    }
    assertThat(HelmProcess.releaseGoroutines()).isEqualTo(HelmProcess.RELEASE_ENABLED);
    assertThat(HelmProcess.releases()).isEqualTo(HelmProcess.RELEASE_ENABLED ? before + 1 : before);
    assertThat(
            render(
                renderer, oneTemplate("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n")))
        .hasSize(1);
  }
}
