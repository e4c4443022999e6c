package dev.gitopshq.activities.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Binding;
import dev.gitopshq.activities.delivery.ProjectSnapshot.ClusterTarget;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Environment;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Overlay;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Target;
import dev.gitopshq.activities.delivery.ProjectSnapshot.TenantValues;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Variable;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Workload;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ProjectConfigFilesTest {
  private static final UUID ORG = UUID.randomUUID();

  static ProjectSnapshot snapshot(Map<String, Object> webValues, long revision) {
    return new ProjectSnapshot(
        ORG,
        UUID.randomUUID(),
        "shop",
        revision,
        List.of(
            new Environment("dev", 0, "{{ .tenant }}-{{ .environment }}", List.of()),
            new Environment(
                "production",
                2,
                "{{ .tenant }}-prod",
                List.of(
                    new ClusterTarget("us-1", UUID.randomUUID(), Map.of()),
                    new ClusterTarget("eu-1", UUID.randomUUID(), Map.of("storageClass", "gp3"))))),
        List.of("globex", "acme"),
        List.of(new Workload("web", "web-chart", "1.10", "ab".repeat(32), webValues, "image.tag")),
        List.of(new TenantValues("web", "acme", "production", Map.of("replicas", 3))),
        List.of(
            new Variable("tenant", null, "acme", null, "REGION", "eu"),
            new Variable("org", null, null, null, "DOMAIN", "example.com"),
            new Variable("environment", "production", null, null, "DOMAIN", "prod.example.com")),
        List.of(
            new Binding(
                "redis",
                "kustomize",
                "redis-base",
                4,
                Map.of("kustomization.yaml", "resources: []\n"),
                List.of(new Overlay("Deployment", "redis", Map.of("spec", Map.of("replicas", 2)))),
                List.of(new Target("acme", "production"), new Target("acme", "dev")))));
  }

  static String text(SortedMap<String, byte[]> files, String path) {
    return new String(files.get(path), StandardCharsets.UTF_8);
  }

  @Test
  void writesTheDocumentedLayout() {
    SortedMap<String, byte[]> files =
        ProjectConfigFiles.files(snapshot(Map.of("image", Map.of("tag", "1.0")), 3));
    assertThat(files.keySet())
        .containsExactly(
            "config/bindings/redis.yaml",
            "config/environments/dev.yaml",
            "config/environments/production.yaml",
            "config/project.yaml",
            "config/tenants.yaml",
            "config/values/production/acme/web.yaml",
            "config/variables.yaml",
            "config/workloads/web.yaml");
    assertThat(text(files, "config/environments/production.yaml"))
        .isEqualTo(
            """
            clusters:
            - name: eu-1
              overrides:
                storageClass: gp3
            - name: us-1
              overrides: {}
            name: production
            namespacePattern: "{{ .tenant }}-prod"
            position: 2
            """);
    // Versions that look like numbers stay strings.
    assertThat(text(files, "config/workloads/web.yaml"))
        .contains("version: \"1.10\"")
        .contains("tag: \"1.0\"");
    assertThat(text(files, "config/tenants.yaml")).isEqualTo("tenants:\n- acme\n- globex\n");
    assertThat(text(files, "config/variables.yaml"))
        .containsSubsequence("scope: org", "scope: environment", "scope: tenant");
    assertThat(text(files, "config/bindings/redis.yaml"))
        .containsSubsequence("environment: dev", "environment: production")
        .contains(
            "sha256: "
                + ProjectConfigFiles.filesDigest(Map.of("kustomization.yaml", "resources: []\n")))
        .contains("sourceRevision: 4");
    assertThat(text(files, "config/values/production/acme/web.yaml")).isEqualTo("replicas: 3\n");
  }

  @Test
  void theSameConfigurationAlwaysGivesTheSameBytes() {
    Map<String, Object> a = new LinkedHashMap<>();
    a.put("z", 1);
    a.put("a", Map.of("x", 2, "b", 3));
    Map<String, Object> b = new LinkedHashMap<>();
    b.put("a", Map.of("b", 3, "x", 2));
    b.put("z", 1);
    SortedMap<String, byte[]> one = ProjectConfigFiles.files(snapshot(a, 1));
    SortedMap<String, byte[]> two = ProjectConfigFiles.files(snapshot(b, 7));
    assertThat(one.keySet()).isEqualTo(two.keySet());
    one.forEach((path, bytes) -> assertThat(two.get(path)).as(path).isEqualTo(bytes));
    assertThat(text(one, "config/workloads/web.yaml"))
        .containsSubsequence("  a:", "    b: 3", "    x: 2", "  z: 1");
  }

  @Test
  void theDigestOfFilesDependsOnPathsAndContent() {
    assertThat(ProjectConfigFiles.filesDigest(Map.of("a", "bc")))
        .isNotEqualTo(ProjectConfigFiles.filesDigest(Map.of("ab", "c")))
        .isEqualTo(ProjectConfigFiles.filesDigest(Map.of("a", "bc")));
  }

  @Test
  void anEnvironmentsSelectorAndWhyEachClusterIsBoundAreWritten() {
    LabelSelector selector =
        new LabelSelector(
            Map.of("tier", "production"),
            List.of(new LabelSelector.Requirement("region", "In", List.of("eu-2", "eu-1"))));
    ProjectSnapshot s =
        new ProjectSnapshot(
            ORG,
            UUID.randomUUID(),
            "shop",
            1,
            List.of(
                new Environment(
                    "production",
                    2,
                    "{{ .tenant }}-prod",
                    List.of(
                        new ClusterTarget(
                            "eu-1", UUID.randomUUID(), Map.of(), "argocd", true, true),
                        new ClusterTarget("eu-2", UUID.randomUUID(), Map.of(), "flux", false, true),
                        new ClusterTarget("us-1", UUID.randomUUID(), Map.of())),
                    false,
                    selector,
                    "flux")),
            List.of(),
            List.of(),
            List.of(),
            List.of(),
            List.of());
    assertThat(text(ProjectConfigFiles.files(s), "config/environments/production.yaml"))
        .isEqualTo(
            """
            clusterSelector:
              matchExpressions:
              - key: region
                operator: In
                values:
                - eu-1
                - eu-2
              matchLabels:
                tier: production
            clusters:
            - boundBy:
              - name
              - selector
              name: eu-1
              overrides: {}
            - boundBy:
              - selector
              deliveryMode: flux
              name: eu-2
              overrides: {}
            - name: us-1
              overrides: {}
            name: production
            namespacePattern: "{{ .tenant }}-prod"
            position: 2
            selectorDeliveryMode: flux
            """);
  }
}
