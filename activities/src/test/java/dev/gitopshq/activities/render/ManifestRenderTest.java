package dev.gitopshq.activities.render;

import static dev.gitopshq.activities.render.Fixtures.cluster;
import static dev.gitopshq.activities.render.Fixtures.overlay;
import static dev.gitopshq.activities.render.Fixtures.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.activities.delivery.ProjectSnapshot.Overlay;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.constructor.SafeConstructor;

class ManifestRenderTest {
  private static final String APP =
      """
      # The application.
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
        labels:
          app: web
      spec:
        replicas: 1
        template:
          spec:
            containers:
              - name: web
                image: nginx:1.27
                env:
                  - name: DB_HOST
                    value: ${DB_HOST}
      ---
      apiVersion: v1
      kind: Service
      metadata:
        name: web
      spec:
        ports:
          - port: 80
      ---
      apiVersion: v1
      kind: Service
      metadata:
        name: web-admin
        namespace: acme-production
      spec:
        ports:
          - port: 9000
      """;
  private static final String CLUSTER =
      """
      apiVersion: v1
      kind: Namespace
      metadata:
        name: shared-tools
      ---
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRole
      metadata:
        name: reader
      rules: []
      ---
      """;

  @TempDir Path work;

  private static Fixtures bundle(Map<String, String> files, List<Overlay> overlays) {
    return Fixtures.project()
        .environment("production", "{{ .tenant }}-{{ .environment }}", cluster("eu-1"))
        .tenants("acme")
        .variable("tenant", "acme", "DB_HOST", "acme-db")
        .binding("web", "manifests", "web-bundle", files, overlays, target("acme", "production"))
        .fence(List.of(), List.of("rbac.authorization.k8s.io/ClusterRole"), List.of());
  }

  private SortedMap<String, String> render(Fixtures f) {
    SortedMap<String, String> out = new TreeMap<>();
    new Renderer()
        .render(f.plan().get(0), d -> null)
        .forEach((k, v) -> out.put(k, new String(v, StandardCharsets.UTF_8)));
    return out;
  }

  @Test
  void appliesOverlaysAndTheNamespaceAndWritesOneFilePerObject() {
    Fixtures f =
        bundle(
            Map.of("app.yaml", APP, "cluster.yaml", CLUSTER),
            List.of(
                overlay(
                    "Deployment",
                    "web",
                    "{'spec':{'replicas':3},'metadata':{'labels':{'tier':'front'}}}"),
                overlay("Service", "", "{'metadata':{'annotations':{'team':'shop'}}}")));

    SortedMap<String, String> files = render(f);

    assertThat(files.keySet())
        .containsExactly(
            "clusterrole-reader.yaml",
            "deployment-web.yaml",
            "namespace-shared-tools.yaml",
            "service-web-admin.yaml",
            "service-web.yaml");
    assertThat(files.get("deployment-web.yaml"))
        .isEqualTo(
            """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web
          namespace: acme-production
          labels:
            app: web
            tier: front
        spec:
          replicas: 3
          template:
            spec:
              containers:
                - name: web
                  image: nginx:1.27
                  env:
                    - name: DB_HOST
                      value: acme-db
        """);
    assertThat(files.get("service-web.yaml")).contains("namespace: acme-production", "team: shop");
    // An object that names its own namespace keeps it (written once); an empty name in an
    // overlay patches every Service.
    assertThat(files.get("service-web-admin.yaml"))
        .contains("namespace: acme-production", "team: shop");
    assertThat(files.get("service-web-admin.yaml").split("namespace:", -1)).hasSize(2);
    // Cluster-scoped kinds never get a namespace.
    assertThat(files.get("namespace-shared-tools.yaml")).doesNotContain("namespace:");
    assertThat(files.get("clusterrole-reader.yaml")).doesNotContain("namespace:");
  }

  @Test
  void anOverlayCanRemoveAField() {
    Fixtures f =
        bundle(
            Map.of("app.yaml", APP),
            List.of(overlay("Deployment", "web", "{'metadata':{'labels':null}}")));

    assertThat(render(f).get("deployment-web.yaml")).doesNotContain("labels:", "app: web");
  }

  @Test
  void anOverlayThatMatchesNothingIsAnError() {
    Fixtures f =
        bundle(
            Map.of("app.yaml", APP),
            List.of(overlay("Deployment", "wbe", "{'spec':{'replicas':3}}")));

    assertThatThrownBy(() -> render(f))
        .isInstanceOf(RenderException.class)
        .hasMessage(
            "cannot render web for tenant acme in production on cluster eu-1: overlay 1 targets"
                + " Deployment wbe, which the bundle does not have");

    Fixtures kind = bundle(Map.of("app.yaml", APP), List.of(overlay("Ingress", "", "{'spec':{}}")));
    assertThatThrownBy(() -> render(kind))
        .hasMessageEndingWith("overlay 1 targets Ingress objects, which the bundle does not have");
  }

  @Test
  void stringsThatLookLikeOtherTypesStayStrings() {
    String cm =
        """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: tricky
        data:
          answer: "yes"
          toggle: "on"
          mode: "0755"
          version: "1.10"
          flag: "true"
          none: "~"
          empty: ""
          date: "2024-01-02"
          exp: "1e3"
          hex: "0x1F"
          octal: "0o17"
          script: |
            #!/bin/sh
            echo "$HOME"
        binaryData: {}
        """;
    Fixtures f = bundle(Map.of("cm.yaml", cm), List.of());

    String out = render(f).get("configmap-tricky.yaml");

    Object reread = new org.yaml.snakeyaml.Yaml(new SafeConstructor(new LoaderOptions())).load(out);
    Object original =
        new org.yaml.snakeyaml.Yaml(new SafeConstructor(new LoaderOptions())).load(cm);
    Map<?, ?> data = (Map<?, ?>) ((Map<?, ?>) reread).get("data");
    assertThat(data).isEqualTo(((Map<?, ?>) original).get("data"));
    assertThat(data.values()).allMatch(v -> v instanceof String);
    assertThat(out).contains("script: |", "\"0o17\"");
  }

  @Test
  void refusesADocumentWithoutKindOrName() {
    Fixtures f =
        bundle(
            Map.of("bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {}\n"),
            List.of());

    assertThatThrownBy(() -> render(f))
        .isInstanceOf(RenderException.class)
        .hasMessage(
            "cannot render web for tenant acme in production on cluster eu-1: an object in bad.yaml lacks"
                + " kind or metadata.name (every object needs both to be applied by GitOps)");
  }
}
