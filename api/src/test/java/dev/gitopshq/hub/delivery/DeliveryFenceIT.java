package dev.gitopshq.hub.delivery;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static dev.gitopshq.hub.delivery.DeliveryFixtures.uniq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The project's fence through the REST API and at generation: only admins set it, every entry is
 * validated, another organization's project is 404, and a delivery never commits an object the
 * fence refuses.
 */
class DeliveryFenceIT {
  static HubTestSupport hub;
  static DeliveryFixtures f;

  String project;
  String env;
  String tenant;
  String cluster;

  static final String CLUSTER_ROLE_BINDING =
      """
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRoleBinding
      metadata:
        name: ops-admin
      roleRef:
        apiGroup: rbac.authorization.k8s.io
        kind: ClusterRole
        name: cluster-admin
      subjects: []
      """;

  static final String CONFIGMAP =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: \"1\"\n";

  @BeforeAll
  static void start() {
    hub = HubTestSupport.shared();
    f = new DeliveryFixtures(hub);
  }

  @BeforeEach
  void project() {
    project = f.project(uniq("shop"));
    env = f.environment(uniq("dev"));
    tenant = f.tenant(uniq("acme"));
    cluster = f.cluster(uniq("eu"));
    f.ok(
        f.put(
            "/api/v2/projects/" + project + "/environments/" + env,
            OWNER_TOKEN,
            Map.of("clusters", List.of(Map.of("cluster", cluster)))),
        200);
    f.ok(f.put("/api/v2/projects/" + project + "/tenants/" + tenant, OWNER_TOKEN, Map.of()), 200);
  }

  String fencePath() {
    return "/api/v2/projects/" + project + "/fence";
  }

  static List<String> fields(Response r) {
    List<String> out = new ArrayList<>();
    r.body().get("errors").forEach(e -> out.add(e.get("field").asText()));
    return out;
  }

  @Test
  void onlyAdminsSetTheFenceAndEveryEntryIsChecked() {
    JsonNode fresh = f.ok(hub.get(fencePath(), OWNER_TOKEN), 200);
    assertThat(fresh.get("default").asBoolean()).isTrue();
    assertThat(fresh.get("deniedKinds").toString())
        .contains("rbac.authorization.k8s.io/*", "admissionregistration.k8s.io/*");

    String member = f.memberToken("member");
    Map<String, Object> wide =
        Map.of(
            "allowedNamespaces", List.of("shop-*"),
            "clusterScopedKinds", List.of("rbac.authorization.k8s.io/ClusterRoleBinding"),
            "deniedKinds", List.of());
    // A member reads it but cannot widen it.
    assertThat(hub.get(fencePath(), member).status()).isEqualTo(200);
    assertThat(f.put(fencePath(), member, wide).status()).isEqualTo(403);

    Response bad =
        f.put(
            fencePath(),
            OWNER_TOKEN,
            Map.of(
                "allowedNamespaces",
                List.of("ok-*", "Bad_NS"),
                "clusterScopedKinds",
                List.of("rbac.authorization.k8s.io/", "StorageClass"),
                "deniedKinds",
                List.of("x/y/z")));
    assertThat(bad.status()).isEqualTo(400);
    assertThat(fields(bad))
        .containsExactlyInAnyOrder(
            "allowedNamespaces[1]", "clusterScopedKinds[0]", "deniedKinds[0]");
    assertThat(bad.raw()).contains("Bad_NS");
    List<String> tooMany = new ArrayList<>();
    for (int i = 0; i <= 100; i++) {
      tooMany.add("ns-" + i);
    }
    Response many = f.put(fencePath(), OWNER_TOKEN, Map.of("allowedNamespaces", tooMany));
    assertThat(many.status()).isEqualTo(400);
    assertThat(fields(many)).containsExactly("allowedNamespaces");

    long before = DeliveryFixtures.revision(project);
    JsonNode set = f.ok(f.put(fencePath(), OWNER_TOKEN, wide), 200);
    assertThat(set.get("changed").asBoolean()).isTrue();
    assertThat(set.get("default").asBoolean()).isFalse();
    assertThat(set.get("revision").asLong()).isEqualTo(before + 1);
    assertThat(set.get("updatedBy").asText()).isNotEmpty();
    assertThat(f.configFile(project, "fence.yaml"))
        .contains("rbac.authorization.k8s.io/ClusterRoleBinding", "shop-*");
    JsonNode read = f.ok(hub.get(fencePath(), member), 200);
    assertThat(read.get("clusterScopedKinds").get(0).asText())
        .isEqualTo("rbac.authorization.k8s.io/ClusterRoleBinding");

    // A namespace pattern the fence can only refuse is refused when it is written.
    Response reserved =
        f.put(
            "/api/v2/projects/" + project + "/environments/" + env,
            member,
            Map.of("namespacePattern", "kube-system", "clusters", List.of()));
    assertThat(reserved.status()).isEqualTo(400);
    assertThat(fields(reserved)).containsExactly("namespacePattern");
    assertThat(reserved.raw()).contains("kube-system");
  }

  @Test
  void anotherOrganizationsProjectIs404() {
    Response org =
        hub.post(
            "/api/v2/orgs",
            OWNER_TOKEN,
            Map.of(
                "slug",
                uniq("other"),
                "name",
                "Other",
                "owner",
                Map.of("email", uniq("o") + "@other.example.com", "name", "Owner")));
    assertThat(org.status()).as(org.raw()).isEqualTo(201);
    String otherOwner = org.body().get("ownerToken").asText();

    assertThat(hub.get(fencePath(), otherOwner).status()).isEqualTo(404);
    assertThat(f.put(fencePath(), otherOwner, Map.of("deniedKinds", List.of())).status())
        .isEqualTo(404);
    assertThat(f.ok(hub.get(fencePath(), OWNER_TOKEN), 200).get("default").asBoolean()).isTrue();
  }

  @Test
  void anOverlayMayNotChangeWhatAnObjectIsOrWhereItGoes() {
    String bundle = uniq("ops");
    f.ok(
        hub.post(
            "/api/v2/manifest-bundles",
            OWNER_TOKEN,
            Map.of("name", bundle, "files", Map.of("cm.yaml", CONFIGMAP))),
        201);
    Response r =
        hub.post(
            "/api/v2/projects/" + project + "/bindings",
            f.memberToken("member"),
            Map.of(
                "name",
                "ops",
                "kind",
                "manifests",
                "source",
                bundle,
                "targets",
                List.of(Map.of("tenant", tenant, "environment", env)),
                "overlays",
                List.of(
                    Map.of(
                        "kind",
                        "ConfigMap",
                        "patch",
                        Map.of(
                            "kind",
                            "ClusterRoleBinding",
                            "metadata",
                            Map.of("namespace", "kube-system"))))));
    assertThat(r.status()).isEqualTo(400);
    assertThat(fields(r))
        .containsExactlyInAnyOrder(
            "overlays[0].patch.kind", "overlays[0].patch.metadata.namespace");
  }

  JsonNode generated() {
    long revision = DeliveryFixtures.revision(project);
    JsonNode[] g = {null};
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              Response r =
                  hub.get("/api/v2/projects/" + project + "/generations/" + revision, OWNER_TOKEN);
              if (r.status() != 200) {
                return false;
              }
              g[0] = r.body();
              return List.of("committed", "unchanged", "failed", "superseded")
                  .contains(r.body().get("status").asText());
            });
    return g[0];
  }

  @Test
  void aClusterRoleBindingFailsGenerationUntilAnAdminAllowsIt() {
    String bundle = uniq("rbac");
    f.ok(
        hub.post(
            "/api/v2/manifest-bundles",
            OWNER_TOKEN,
            Map.of(
                "name",
                bundle,
                "files",
                Map.of("crb.yaml", CLUSTER_ROLE_BINDING, "cm.yaml", CONFIGMAP))),
        201);
    f.ok(
        hub.post(
            "/api/v2/projects/" + project + "/bindings",
            OWNER_TOKEN,
            Map.of(
                "name",
                "ops",
                "kind",
                "manifests",
                "source",
                bundle,
                "targets",
                List.of(Map.of("tenant", tenant, "environment", env)))),
        201);

    JsonNode refused = generated();
    assertThat(refused.get("status").asText()).as(refused.toString()).isEqualTo("failed");
    assertThat(refused.get("detail").asText())
        .contains(
            "crb.yaml: ClusterRoleBinding ops-admin: kind ClusterRoleBinding is denied by the"
                + " project's fence (rbac.authorization.k8s.io/*)");
    UUID org = DeliveryFixtures.orgOf(project);
    String unit = env + "/" + cluster + "/" + tenant + "/ops/";
    ProjectRepos repos = f.repos();
    var head = repos.head(org, UUID.fromString(project), ProjectRepos.MAIN).orElseThrow();
    assertThat(repos.readFiles(org, UUID.fromString(project), head, "rendered").keySet())
        .noneMatch(p -> p.startsWith(unit));

    // The admin allows the kind (and lifts the RBAC denial): the fence change is a configuration
    // change, and its generation delivers the bundle.
    f.ok(
        f.put(
            fencePath(),
            OWNER_TOKEN,
            Map.of(
                "clusterScopedKinds",
                List.of("rbac.authorization.k8s.io/ClusterRoleBinding"),
                "deniedKinds",
                List.of("admissionregistration.k8s.io/*"))),
        200);
    JsonNode delivered = generated();
    assertThat(delivered.get("status").asText()).as(delivered.toString()).isEqualTo("committed");
    head = repos.head(org, UUID.fromString(project), ProjectRepos.MAIN).orElseThrow();
    SortedMap<String, byte[]> files =
        repos.readFiles(org, UUID.fromString(project), head, "rendered");
    assertThat(
            new String(
                files.get(unit + "clusterrolebinding-ops-admin.yaml"), StandardCharsets.UTF_8))
        .doesNotContain("namespace:");
    assertThat(new String(files.get(unit + "configmap-settings.yaml"), StandardCharsets.UTF_8))
        .contains("namespace: " + tenant + "-" + env);
  }
}
