package dev.gitopshq.activities.render;

import static dev.gitopshq.activities.render.Fixtures.cluster;
import static dev.gitopshq.activities.render.Fixtures.overlay;
import static dev.gitopshq.activities.render.Fixtures.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KustomizeRenderTest {
  /** kubectl with its built-in kustomize; GITOPSHQ_KUBECTL overrides where it is. */
  private static final Path KUBECTL =
      Path.of(System.getenv().getOrDefault("GITOPSHQ_KUBECTL", "/usr/bin/kubectl"));

  private static final Map<String, String> REDIS =
      Map.of(
          "kustomization.yaml",
              """
          resources:
            - deployment.yaml
            - service.yaml
          """,
          "deployment.yaml",
              """
          apiVersion: apps/v1
          kind: Deployment
          metadata:
            name: redis
          spec:
            replicas: 1
            selector:
              matchLabels:
                app: redis
            template:
              metadata:
                labels:
                  app: redis
              spec:
                containers:
                  - name: redis
                    image: redis:7.2
                    args: ["--maxmemory", "100mb"]
          """,
          "service.yaml",
              """
          apiVersion: v1
          kind: Service
          metadata:
            name: redis
          spec:
            selector:
              app: redis
            ports:
              - port: 6379
          """);

  @TempDir Path work;

  private static List<Unit> plan() {
    return Fixtures.project()
        .environment("production", "{{ .tenant }}-{{ .environment }}", cluster("eu-1"))
        .tenants("acme", "globex")
        .variable("tenant", "acme", "REDIS_TAG", "7.4")
        .variable("tenant", "globex", "REDIS_TAG", "7.4.1")
        .binding(
            "cache",
            "kustomize",
            "redis",
            REDIS,
            List.of(
                overlay(
                    "Deployment",
                    "redis",
                    "{'spec':{'replicas':3,'template':{'spec':{'containers':[{'name':'redis','image':'redis:${REDIS_TAG}'}]}}}}"),
                overlay("Service", "", "{'metadata':{'labels':{'tier':'cache'}}}")),
            target("acme", "production"),
            target("globex", "production"))
        .plan();
  }

  private Path write(List<Unit> units) throws IOException {
    Path repo = work.resolve("repo");
    Renderer renderer = new Renderer();
    for (Unit unit : units) {
      SortedMap<String, byte[]> files = renderer.render(unit, d -> null);
      for (Map.Entry<String, byte[]> f : files.entrySet()) {
        Path target = repo.resolve(unit.path()).resolve(f.getKey());
        Files.createDirectories(target.getParent());
        Files.write(target, f.getValue());
      }
    }
    return repo;
  }

  @Test
  void writesAKustomizationWithTheBaseTheNamespaceAndThePatches() {
    Unit acme =
        plan().stream()
            .filter(u -> u.path().equals("rendered/production/eu-1/acme/cache"))
            .findFirst()
            .orElseThrow();

    SortedMap<String, byte[]> files = new Renderer().render(acme, d -> null);

    assertThat(files.keySet()).containsExactly("kustomization.yaml");
    assertThat(new String(files.get("kustomization.yaml"), StandardCharsets.UTF_8))
        .isEqualTo(
            """
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        namespace: acme-production
        resources:
          - ../../../_bases/redis
        patches:
          - target:
              kind: Deployment
              name: redis
            patch: |
              kind: Deployment
              metadata:
                name: redis
              spec:
                replicas: 3
                template:
                  spec:
                    containers:
                      - name: redis
                        image: redis:7.4
          - target:
              kind: Service
            patch: |
              kind: Service
              metadata:
                name: any
                labels:
                  tier: cache
        """);
  }

  @Test
  void copiesTheBaseAsItIs() {
    Unit base =
        plan().stream().filter(u -> u.kind().equals(Unit.KUSTOMIZE_BASE)).findFirst().orElseThrow();

    SortedMap<String, byte[]> files = new Renderer().render(base, d -> null);

    assertThat(base.path()).isEqualTo("rendered/production/_bases/redis");
    assertThat(files.keySet())
        .containsExactly("deployment.yaml", "kustomization.yaml", "service.yaml");
    assertThat(new String(files.get("deployment.yaml"), StandardCharsets.UTF_8))
        .isEqualTo(REDIS.get("deployment.yaml"));
  }

  @Test
  void kubectlKustomizeBuildsTheRenderedTree() throws Exception {
    assumeTrue(
        Files.isExecutable(KUBECTL), "kubectl not found at " + KUBECTL + " (set GITOPSHQ_KUBECTL)");
    Path repo = write(plan());

    String acme = kustomize(repo.resolve("rendered/production/eu-1/acme/cache"));
    String globex = kustomize(repo.resolve("rendered/production/eu-1/globex/cache"));

    // The strategic-merge patch merges the container by name: args from the base stay.
    assertThat(acme)
        .contains(
            "namespace: acme-production",
            "replicas: 3",
            "image: redis:7.4\n",
            "tier: cache",
            "--maxmemory")
        .doesNotContain("redis:7.2", "namespace: globex");
    assertThat(globex)
        .contains("namespace: globex-production", "image: redis:7.4.1", "tier: cache");
  }

  @Test
  void refusesAnUnsafePathInABase() {
    Unit base =
        new Unit(
            "rendered/production/_bases/redis",
            Unit.KUSTOMIZE_BASE,
            "production",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            Map.of(),
            Map.of("/etc/passwd", "x"),
            List.of(),
            "",
            Map.of());

    assertThatThrownBy(() -> new Renderer().render(base, d -> null))
        .isInstanceOf(RenderException.class)
        .hasMessage(
            "cannot render Kustomize base rendered/production/_bases/redis: file path '/etc/passwd'"
                + " must be relative, not absolute");
  }

  private static String kustomize(Path dir) throws Exception {
    Process p =
        new ProcessBuilder(KUBECTL.toString(), "kustomize", dir.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("kubectl kustomize failed:\n%s", out).isZero();
    return out;
  }
}
