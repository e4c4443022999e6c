package dev.gitopshq.activities.render;

import static dev.gitopshq.activities.render.Fixtures.cluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    SortedMap<String, byte[]> files = new Renderer().render(acme, charts());

    Path valuesFile =
        Files.writeString(
            work.resolve("expected-values.json"), Fixtures.JSON.writeValueAsString(expectedValues));
    String helm = HelmCli.template(TarGz.webappDir(), "web", "acme-production", valuesFile);
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

    SortedMap<String, byte[]> files = new Renderer().render(globex, charts());

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

    SortedMap<String, byte[]> files = new Renderer().render(f.plan().get(0), charts());

    String deployment = new String(files.get("deployment-web.yaml"), StandardCharsets.UTF_8);
    assertThat(deployment).contains("limits:").doesNotContain("requests:", "cpu: 100m");
  }

  @Test
  void everyRenderIsCountedByHowItEnded() {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    Metrics.addRegistry(meters);
    try {
      Unit acme = unit(shop().plan(), "rendered/production/eu-1/acme/web");
      Fixtures failing =
          Fixtures.project()
              .environment("production", "{{ .tenant }}", cluster("eu-1"))
              .tenants("acme")
              .workload("web", "{'ingress':{'enabled':true}}", digest);
      Renderer renderer = new Renderer();

      renderer.render(acme, charts());
      renderer.render(acme, charts());
      assertThatThrownBy(() -> renderer.render(failing.plan().get(0), charts()))
          .isInstanceOf(RenderException.class);

      assertThat(meters.get("gitopshq.helm.renders").tag("result", "ok").counter().count())
          .isEqualTo(2);
      assertThat(meters.get("gitopshq.helm.renders").tag("result", "failed").counter().count())
          .isEqualTo(1);
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

    assertThatThrownBy(() -> new Renderer().render(f.plan().get(0), charts()))
        .isInstanceOf(RenderException.class)
        .hasMessageStartingWith(
            "cannot render web for tenant acme in production on cluster eu-1: Helm: ")
        .hasMessageContaining("ingress.host is required when ingress.enabled is true")
        .hasMessageNotContaining("--debug");
  }

  @Test
  void refusesAMissingOrTamperedChart() {
    Unit web = unit(shop().plan(), "rendered/production/eu-1/globex/web");

    assertThatThrownBy(() -> new Renderer().render(web, d -> null))
        .isInstanceOf(RenderException.class)
        .hasMessage(
            "cannot render web for tenant globex in production on cluster eu-1: chart webapp 1.2.0"
                + " (sha256 "
                + digest
                + ") is not stored");
    byte[] tampered = TarGz.webappWith("webapp/values.yaml", "replicaCount: 9\n");
    assertThatThrownBy(() -> new Renderer().render(web, d -> tampered))
        .isInstanceOf(RenderException.class)
        .hasMessageContaining("does not match its digest");
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
    Renderer renderer = new Renderer();

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

    SortedMap<String, byte[]> files = new Renderer().render(unit, d -> chart);

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
    assertThatThrownBy(() -> render(new Renderer(), probe))
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
  void aRenderThatPrintsTooMuchIsRefusedNamingTheUnit() {
    String template =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  x: \"{{ range until"
            + " 20000 }}xxxxxxxxxx{{ end }}\"\n";
    Probe unit = oneTemplate(template);
    RenderWorkers small =
        new RenderWorkers(
            RenderWorkers.Config.fromEnvironment()
                .with(java.time.Duration.ofSeconds(30), 256L << 20, 100_000));
    try {
      assertThatThrownBy(() -> render(new Renderer(small), unit))
          .isInstanceOf(RenderException.class)
          .hasMessageContaining("for tenant acme in production")
          .hasMessageContaining("more than the 100000 bytes");
    } finally {
      small.close();
    }
    // The default limit takes it.
    assertThat(render(new Renderer(), unit)).hasSize(1);
  }
}
