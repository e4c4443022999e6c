package dev.gitopshq.activities.render;

import static dev.gitopshq.activities.render.Fixtures.cluster;
import static dev.gitopshq.activities.render.Fixtures.overlay;
import static dev.gitopshq.activities.render.Fixtures.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.activities.delivery.ProjectSnapshot.Overlay;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What was approved is what runs: every namespaced object carries its unit's namespace, kinds are
 * scoped by what the hub knows, and the project's fence is checked on every object.
 */
class NamespaceFenceRenderTest {
  @TempDir Path work;

  private static final String DEPLOYMENT_AND_SERVICE =
      """
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: {{ .Release.Name }}
        labels:
          app: web
      spec:
        replicas: 1
      ---
      apiVersion: v1
      kind: Service
      metadata:
        name: {{ .Release.Name }}
      spec:
        ports:
          - port: 80
      ---
      apiVersion: scheduling.k8s.io/v1
      kind: PriorityClass
      metadata:
        name: {{ .Release.Name }}-high
      value: 1000
      """;

  private static byte[] chart(Map<String, String> files) {
    TarGz tar =
        TarGz.create().file("probe/Chart.yaml", "apiVersion: v2\nname: probe\nversion: 0.1.0\n");
    files.forEach((path, text) -> tar.file("probe/" + path, text));
    return tar.build();
  }

  private static Map<String, String> text(SortedMap<String, byte[]> files) {
    Map<String, String> out = new TreeMap<>();
    files.forEach((k, v) -> out.put(k, new String(v, StandardCharsets.UTF_8)));
    return out;
  }

  private Map<String, String> renderHelm(Fixtures f, byte[] chart) {
    return text(new Renderer().render(f.plan().get(0), d -> chart));
  }

  private static Fixtures helmProject(byte[] chart) {
    return Fixtures.project()
        .environment("dev", "{{ .tenant }}-{{ .environment }}", cluster("eu-1"))
        .tenants("acme")
        .workload("web", "{}", ChartArchive.sha256(chart));
  }

  @Test
  void helmOutputGetsTheUnitsNamespaceAndStaysWhatHelmPrinted() throws Exception {
    byte[] chart = chart(Map.of("templates/app.yaml", DEPLOYMENT_AND_SERVICE));
    Fixtures f =
        helmProject(chart).fence(List.of(), List.of("scheduling.k8s.io/PriorityClass"), List.of());

    Map<String, String> files = renderHelm(f, chart);

    // helm template --namespace does not write metadata.namespace: the hub adds it, right after
    // the name, and keeps every other character Helm printed.
    Path archive = Files.write(work.resolve("probe.tgz"), chart);
    String helm = HelmCli.template(archive, "web", "acme-dev", null);
    List<String> docs = Arrays.stream(helm.split("(?m)^---\\n")).filter(d -> !d.isBlank()).toList();
    assertThat(files.keySet())
        .containsExactly("deployment-web.yaml", "priorityclass-web-high.yaml", "service-web.yaml");
    for (String doc : docs) {
      String expected =
          doc.contains("kind: PriorityClass")
              ? doc
              : doc.replaceFirst("(?m)^  name: web\\n", "  name: web\n  namespace: acme-dev\n");
      assertThat(files.values()).contains(expected);
    }
    assertThat(files.get("service-web.yaml"))
        .startsWith("# Source: probe/templates/app.yaml\n")
        .contains("metadata:\n  name: web\n  namespace: acme-dev\nspec:");
    assertThat(files.get("deployment-web.yaml"))
        .contains("  name: web\n  namespace: acme-dev\n  labels:\n    app: web\n");
    // Cluster-scoped kinds are left alone.
    assertThat(files.get("priorityclass-web-high.yaml")).doesNotContain("namespace");
  }

  @Test
  void everyEnvironmentGetsItsOwnObjectIdentities() {
    byte[] chart = chart(Map.of("templates/app.yaml", DEPLOYMENT_AND_SERVICE));
    Fixtures f =
        Fixtures.project()
            .environment("dev", "{{ .tenant }}-{{ .environment }}", cluster("eu-1"))
            .environment("staging", "{{ .tenant }}-{{ .environment }}", cluster("eu-1"))
            .tenants("acme")
            .workload("web", "{}", ChartArchive.sha256(chart))
            .fence(List.of(), List.of("scheduling.k8s.io/PriorityClass"), List.of());
    Renderer r = new Renderer();
    List<Unit> units = f.plan();

    assertThat(text(r.render(units.get(0), d -> chart)).get("service-web.yaml"))
        .contains("namespace: acme-dev");
    assertThat(text(r.render(units.get(1), d -> chart)).get("service-web.yaml"))
        .contains("namespace: acme-staging");
  }

  @Test
  void aCustomKindTakesItsScopeFromTheCrdTheChartShips() {
    String crd =
        """
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata:
          name: %s.example.com
        spec:
          group: example.com
          scope: %s
          names:
            kind: %s
            plural: %s
          versions: []
        """;
    byte[] chart =
        chart(
            Map.of(
                "crds/widgets.yaml",
                crd.formatted("widgets", "Namespaced", "Widget", "widgets"),
                "crds/gadgets.yaml",
                crd.formatted("gadgets", "Cluster", "Gadget", "gadgets"),
                "templates/objects.yaml",
                """
                apiVersion: example.com/v1
                kind: Widget
                metadata:
                  name: w
                ---
                apiVersion: example.com/v1
                kind: Gadget
                metadata:
                  name: g
                """));
    Fixtures f = helmProject(chart).fence(List.of(), List.of("example.com/Gadget"), List.of());

    Map<String, String> files = renderHelm(f, chart);

    assertThat(files.get("widget-w.yaml")).contains("name: w\n  namespace: acme-dev\n");
    assertThat(files.get("gadget-g.yaml")).doesNotContain("namespace");
  }

  @Test
  void aKindOfUnknownScopeIsAnErrorUnlessTheWorkloadDeclaresIt() {
    byte[] chart =
        chart(
            Map.of(
                "templates/monitor.yaml",
                """
                apiVersion: monitoring.coreos.com/v1
                kind: ServiceMonitor
                metadata:
                  name: web
                """));

    assertThatThrownBy(() -> renderHelm(helmProject(chart), chart))
        .isInstanceOf(RenderException.class)
        .hasMessageContaining("probe/templates/monitor.yaml: kind ServiceMonitor")
        .hasMessageContaining("declare it in kindScopes of workload web");

    Fixtures declared =
        Fixtures.project()
            .environment("dev", "{{ .tenant }}-{{ .environment }}", cluster("eu-1"))
            .tenants("acme")
            .workload(
                "web",
                ChartArchive.sha256(chart),
                Map.of("monitoring.coreos.com/ServiceMonitor", "Namespaced"));
    assertThat(renderHelm(declared, chart).get("servicemonitor-web.yaml"))
        .contains("namespace: acme-dev");
  }

  @Test
  void anObjectNamingAnotherNamespaceIsRefusedNamingItsFile() {
    byte[] chart =
        chart(
            Map.of(
                "templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: kube-system\n"));

    assertThatThrownBy(() -> renderHelm(helmProject(chart), chart))
        .isInstanceOf(RenderException.class)
        .hasMessageContaining("probe/templates/cm.yaml: ConfigMap c names namespace kube-system")
        .hasMessageContaining("not acme-dev");

    Fixtures bundle =
        bundle(
            "moved.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: other\n",
            List.of());
    assertThatThrownBy(() -> renderBundle(bundle))
        .hasMessageContaining("moved.yaml: ConfigMap c names namespace other");
  }

  private static final String ROLE_BINDING =
      """
      apiVersion: rbac.authorization.k8s.io/v1
      kind: RoleBinding
      metadata:
        name: readers
      roleRef:
        apiGroup: rbac.authorization.k8s.io
        kind: Role
        name: reader
      subjects: []
      """;

  private static Fixtures bundle(String file, String text, List<Overlay> overlays) {
    return Fixtures.project()
        .environment("dev", "{{ .tenant }}-{{ .environment }}", cluster("eu-1"))
        .tenants("acme")
        .binding(
            "ops", "manifests", "ops-bundle", Map.of(file, text), overlays, target("acme", "dev"));
  }

  private Map<String, String> renderBundle(Fixtures f) {
    return text(new Renderer().render(f.plan().get(0), d -> null));
  }

  @Test
  void anOverlayMayNotTurnAnObjectIntoAnotherOrMoveIt() {
    Fixtures f =
        bundle(
                "rb.yaml",
                ROLE_BINDING,
                List.of(
                    overlay(
                        "RoleBinding",
                        "readers",
                        "{'kind':'ClusterRoleBinding','roleRef':{'name':'cluster-admin'}}")))
            .fence(List.of(), List.of(), List.of());

    assertThatThrownBy(() -> renderBundle(f))
        .isInstanceOf(RenderException.class)
        .hasMessageContaining("overlay 1 changes kind; an overlay may not change");

    Fixtures moved =
        bundle(
                "rb.yaml",
                ROLE_BINDING,
                List.of(overlay("RoleBinding", "", "{'metadata':{'namespace':'kube-system'}}")))
            .fence(List.of(), List.of(), List.of());
    assertThatThrownBy(() -> renderBundle(moved))
        .hasMessageContaining("changes metadata.namespace");
  }

  @Test
  void theFenceRefusesAClusterRoleBindingUnlessAnAdminAllowsIt() {
    String crb =
        """
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRoleBinding
        metadata:
          name: escalate
        roleRef:
          apiGroup: rbac.authorization.k8s.io
          kind: ClusterRole
          name: cluster-admin
        subjects: []
        """;

    // The default fence denies RBAC outright.
    assertThatThrownBy(() -> renderBundle(bundle("crb.yaml", crb, List.of())))
        .isInstanceOf(RenderException.class)
        .hasMessage(
            "cannot render ops for tenant acme in dev on cluster eu-1: crb.yaml: ClusterRoleBinding"
                + " escalate: kind ClusterRoleBinding is denied by the project's fence"
                + " (rbac.authorization.k8s.io/*)");
    // Without the denial it is still a cluster-scoped kind the fence does not list.
    assertThatThrownBy(
            () ->
                renderBundle(
                    bundle("crb.yaml", crb, List.of()).fence(List.of(), List.of(), List.of())))
        .hasMessageContaining("cluster-scoped kind rbac.authorization.k8s.io/ClusterRoleBinding");
    // An admin who lists it lets it through, untouched by the namespace.
    Map<String, String> files =
        renderBundle(
            bundle("crb.yaml", crb, List.of())
                .fence(
                    List.of(), List.of("rbac.authorization.k8s.io/ClusterRoleBinding"), List.of()));
    assertThat(files.get("clusterrolebinding-escalate.yaml")).doesNotContain("namespace");
  }

  @Test
  void theFenceLimitsTheNamespacesAndTheNamespaceObjectIsWrittenWhenAsked() {
    byte[] chart =
        chart(
            Map.of("templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"));
    Fixtures f =
        Fixtures.project()
            .environmentWithNamespace("dev", "{{ .tenant }}-{{ .environment }}", cluster("eu-1"))
            .tenants("acme", "globex")
            .workload("web", "{}", ChartArchive.sha256(chart));
    List<Unit> units = f.plan();

    assertThat(units)
        .extracting(Unit::path)
        .containsExactly(
            "rendered/dev/eu-1/acme/_namespace",
            "rendered/dev/eu-1/acme/web",
            "rendered/dev/eu-1/globex/_namespace",
            "rendered/dev/eu-1/globex/web");
    assertThat(text(new Renderer().render(units.get(0), d -> chart)))
        .containsExactly(
            Map.entry(
                "namespace-acme-dev.yaml",
                "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: acme-dev\n"));

    // A fence that allows only acme's namespaces refuses globex's at planning.
    f.fence(List.of("acme-*"), List.of(), List.of());
    assertThatThrownBy(f::plan)
        .isInstanceOf(PlanException.class)
        .hasMessageContaining("environment dev gives globex-dev for tenant globex")
        .hasMessageContaining("outside the project's fence");
  }
}
