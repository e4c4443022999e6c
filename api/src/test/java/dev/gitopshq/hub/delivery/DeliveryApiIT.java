package dev.gitopshq.hub.delivery;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static dev.gitopshq.hub.delivery.DeliveryFixtures.uniq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.hub.delivery.image.ImageUpdateWebhook;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The delivery object model over REST on a real hub, PostgreSQL and hosted repositories: CRUD and
 * validation of every resource, and the change pipeline (one commit on main per change).
 */
class DeliveryApiIT {
  static HubTestSupport hub;
  static DeliveryFixtures f;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.shared();
    f = new DeliveryFixtures(hub);
  }

  static List<String> fields(Response r) {
    List<String> out = new ArrayList<>();
    r.body().get("errors").forEach(e -> out.add(e.get("field").asText()));
    return out;
  }

  static String reason(Response r, String field) {
    for (JsonNode e : r.body().get("errors")) {
      if (e.get("field").asText().equals(field)) {
        return e.get("reason").asText();
      }
    }
    throw new AssertionError("no error for field " + field + " in " + r.raw());
  }

  // ---- organization environments and tenants
  // ---------------------------------------------------------

  @Test
  void environmentsKeepTheirOrderAndAreGuardedWhileUsed() {
    String a = f.environment(uniq("dev"));
    String c = f.environment(uniq("prod"));
    // Inserted at a position: the ones after it move down.
    Response b =
        hub.post(
            "/api/v2/environments",
            OWNER_TOKEN,
            Map.of("name", uniq("staging"), "description", "pre-prod", "position", positionOf(c)));
    assertThat(b.status()).as(b.raw()).isEqualTo(201);
    String bName = b.body().get("name").asText();
    assertThat(namesInOrder()).containsSubsequence(a, bName, c);

    Response invalid =
        hub.post(
            "/api/v2/environments", OWNER_TOKEN, Map.of("name", "Not_A_Label", "position", -1));
    assertThat(invalid.status()).isEqualTo(400);
    assertThat(fields(invalid)).containsExactlyInAnyOrder("name", "position");
    assertThat(hub.post("/api/v2/environments", OWNER_TOKEN, Map.of("name", a)).status())
        .isEqualTo(409);
    assertThat(
            hub.post(
                    "/api/v2/environments", OWNER_TOKEN, Map.of("name", uniq("x"), "colour", "red"))
                .status())
        .isEqualTo(400);

    // A reorder must name every environment exactly once.
    List<String> order = namesInOrder();
    Response partial =
        f.put("/api/v2/environments/order", OWNER_TOKEN, Map.of("order", List.of(a, c)));
    assertThat(partial.status()).isEqualTo(400);
    assertThat(fields(partial)).containsExactly("order");
    List<String> reversed = new ArrayList<>(order);
    Collections.reverse(reversed);
    Response reorder = f.put("/api/v2/environments/order", OWNER_TOKEN, Map.of("order", reversed));
    assertThat(reorder.status()).as(reorder.raw()).isEqualTo(200);
    assertThat(namesInOrder()).isEqualTo(reversed);
    f.put("/api/v2/environments/order", OWNER_TOKEN, Map.of("order", order));

    Response patched =
        hub.patch(
            "/api/v2/environments/" + a, OWNER_TOKEN, Map.of("description", "for developers"));
    assertThat(patched.body().get("description").asText()).isEqualTo("for developers");
    assertThat(
            hub.patch(
                    "/api/v2/environments/" + uniq("none"), OWNER_TOKEN, Map.of("description", "x"))
                .status())
        .isEqualTo(404);

    String project = f.project(uniq("envguard"));
    assertThat(
            f.put("/api/v2/projects/" + project + "/environments/" + a, OWNER_TOKEN, Map.of())
                .status())
        .isEqualTo(200);
    Response inUse = f.delete("/api/v2/environments/" + a, OWNER_TOKEN);
    assertThat(inUse.status()).isEqualTo(409);
    assertThat(inUse.body().get("message").asText()).contains("used by projects");
    assertThat(f.delete("/api/v2/environments/" + c, OWNER_TOKEN).status()).isEqualTo(204);
    assertThat(namesInOrder()).doesNotContain(c);
    assertThat(f.delete("/api/v2/environments/" + c, OWNER_TOKEN).status()).isEqualTo(404);
  }

  static List<String> namesInOrder() {
    List<String> names = new ArrayList<>();
    int last = -1;
    for (JsonNode e : hub.get("/api/v2/environments", OWNER_TOKEN).body().get("items")) {
      assertThat(e.get("position").asInt()).isGreaterThan(last);
      last = e.get("position").asInt();
      names.add(e.get("name").asText());
    }
    return names;
  }

  static int positionOf(String env) {
    return hub.get("/api/v2/environments/" + env, OWNER_TOKEN).body().get("position").asInt();
  }

  @Test
  void tenantsAreValidatedAndCannotBeDeletedWhileLinked() {
    String t = uniq("acme");
    Response created =
        hub.post(
            "/api/v2/tenants",
            OWNER_TOKEN,
            Map.of("name", t, "displayName", "ACME Corp", "labels", Map.of("tier", "gold")));
    assertThat(created.status()).isEqualTo(201);
    assertThat(created.body().get("labels").get("tier").asText()).isEqualTo("gold");
    assertThat(hub.post("/api/v2/tenants", OWNER_TOKEN, Map.of("name", t)).status()).isEqualTo(409);
    Response bad =
        hub.post(
            "/api/v2/tenants",
            OWNER_TOKEN,
            Map.of("name", "-bad", "labels", Map.of("k", "not ok!")));
    assertThat(fields(bad)).containsExactlyInAnyOrder("name", "labels.k");

    Response patched =
        hub.patch("/api/v2/tenants/" + t, OWNER_TOKEN, Map.of("displayName", "ACME"));
    assertThat(patched.body().get("displayName").asText()).isEqualTo("ACME");
    assertThat(patched.body().get("labels").get("tier").asText()).isEqualTo("gold");

    String project = f.project(uniq("tenants"));
    assertThat(f.put("/api/v2/projects/" + project + "/tenants/" + t, OWNER_TOKEN, null).status())
        .isEqualTo(200);
    assertThat(f.delete("/api/v2/tenants/" + t, OWNER_TOKEN).status()).isEqualTo(409);
    assertThat(f.delete("/api/v2/projects/" + project + "/tenants/" + t, OWNER_TOKEN).status())
        .isEqualTo(200);
    assertThat(f.delete("/api/v2/tenants/" + t, OWNER_TOKEN).status()).isEqualTo(204);
    assertThat(hub.get("/api/v2/tenants/" + t, OWNER_TOKEN).status()).isEqualTo(404);
  }

  // ---- charts
  // -----------------------------------------------------------------------------------------

  @Test
  void chartVersionsAreInspectedImmutableAndDownloadable() {
    String name = uniq("web");
    byte[] v1 = DeliveryFixtures.chart(name, "1.0.0", "Web frontend");
    Response up = f.upload(OWNER_TOKEN, v1, "application/gzip");
    assertThat(up.status()).as(up.raw()).isEqualTo(201);
    assertThat(up.body().get("name").asText()).isEqualTo(name);
    assertThat(up.body().get("version").asText()).isEqualTo("1.0.0");
    assertThat(up.body().get("appVersion").asText()).isEqualTo("1.0.0");
    assertThat(up.body().get("description").asText()).isEqualTo("Web frontend");
    assertThat(up.body().get("size").asInt()).isEqualTo(v1.length);
    String digest = up.body().get("digest").asText();
    assertThat(digest).matches("[0-9a-f]{64}");

    // The same archive again is fine; other content under the same version is not.
    assertThat(f.upload(OWNER_TOKEN, v1, "application/octet-stream").status()).isEqualTo(200);
    Response changed =
        f.upload(OWNER_TOKEN, DeliveryFixtures.chart(name, "1.0.0", "Other"), "application/x-gzip");
    assertThat(changed.status()).isEqualTo(409);
    assertThat(changed.body().get("message").asText()).contains("chart versions are immutable");

    // A newer version through a form upload; versions come newest first.
    assertThat(
            f.uploadMultipart(OWNER_TOKEN, DeliveryFixtures.chart(name, "1.10.0", "Web frontend"))
                .status())
        .isEqualTo(201);
    f.chartVersion(name, "1.2.0");
    Response chart = hub.get("/api/v2/charts/" + name, OWNER_TOKEN);
    assertThat(chart.body().get("versions").findValuesAsText("version"))
        .containsExactly("1.10.0", "1.2.0", "1.0.0");
    assertThat(chart.body().get("latestVersion").asText()).isEqualTo("1.10.0");
    assertThat(hub.get("/api/v2/charts", OWNER_TOKEN).body().get("items").findValuesAsText("name"))
        .contains(name);
    assertThat(
            hub.get("/api/v2/charts/" + name + "/versions/1.0.0", OWNER_TOKEN)
                .body()
                .get("digest")
                .asText())
        .isEqualTo(digest);
    assertThat(f.download("/api/v2/charts/" + name + "/versions/1.0.0/archive", OWNER_TOKEN))
        .isEqualTo(v1);
    assertThat(hub.get("/api/v2/charts/" + name + "/versions/9.9.9", OWNER_TOKEN).status())
        .isEqualTo(404);

    // Refusals say why.
    Response broken =
        f.upload(
            OWNER_TOKEN,
            "this is not a tarball".getBytes(StandardCharsets.UTF_8),
            "application/gzip");
    assertThat(broken.status()).isEqualTo(400);
    assertThat(fields(broken)).containsExactly("chart");
    assertThat(reason(broken, "chart")).isNotBlank();
    Response noChartYaml =
        f.upload(
            OWNER_TOKEN,
            DeliveryFixtures.tgz(Map.of("x/values.yaml", "a: 1\n")),
            "application/gzip");
    assertThat(noChartYaml.status()).isEqualTo(400);
    assertThat(reason(noChartYaml, "chart")).contains("Chart.yaml");
    assertThat(f.upload(OWNER_TOKEN, v1, "text/plain").status()).isEqualTo(415);
    Response tooBig =
        f.upload(OWNER_TOKEN, new byte[10 * 1024 * 1024 + 100], "application/octet-stream");
    assertThat(tooBig.status()).isEqualTo(413);

    // A version a workload uses cannot be deleted.
    String project = f.project(uniq("charts"));
    assertThat(
            hub.post(
                    "/api/v2/projects/" + project + "/workloads",
                    OWNER_TOKEN,
                    Map.of("name", "web", "chart", name, "version", "1.0.0"))
                .status())
        .isEqualTo(201);
    assertThat(f.delete("/api/v2/charts/" + name + "/versions/1.0.0", OWNER_TOKEN).status())
        .isEqualTo(409);
    assertThat(f.delete("/api/v2/charts/" + name + "/versions/1.2.0", OWNER_TOKEN).status())
        .isEqualTo(204);
    assertThat(
            hub.get("/api/v2/charts/" + name, OWNER_TOKEN)
                .body()
                .get("versions")
                .findValuesAsText("version"))
        .containsExactly("1.10.0", "1.0.0");
  }

  // ---- bundles and bases
  // ----------------------------------------------------------------------------

  static final String CONFIGMAP =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: \"1\"\n";

  @Test
  void bundlesAndBasesAreValidatedVersionedAndGuarded() {
    String bundle = uniq("monitoring");
    Response badPaths =
        hub.post(
            "/api/v2/manifest-bundles",
            OWNER_TOKEN,
            Map.of(
                "name",
                bundle,
                "files",
                Map.of(
                    "../escape.yaml",
                    CONFIGMAP,
                    "ok.yaml",
                    "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n",
                    "broken.yaml",
                    "a: [unclosed\n")));
    assertThat(badPaths.status()).isEqualTo(400);
    assertThat(fields(badPaths))
        .containsExactlyInAnyOrder("files.../escape.yaml", "files.ok.yaml", "files.broken.yaml");
    assertThat(reason(badPaths, "files.../escape.yaml")).contains("..");
    assertThat(reason(badPaths, "files.ok.yaml")).contains("metadata.name");
    assertThat(reason(badPaths, "files.broken.yaml")).contains("YAML");

    Response created =
        hub.post(
            "/api/v2/manifest-bundles",
            OWNER_TOKEN,
            Map.of(
                "name",
                bundle,
                "description",
                "dashboards",
                "files",
                Map.of("cm.yaml", CONFIGMAP)));
    assertThat(created.status()).as(created.raw()).isEqualTo(201);
    assertThat(created.body().get("revision").asInt()).isEqualTo(1);
    assertThat(
            hub.post(
                    "/api/v2/manifest-bundles",
                    OWNER_TOKEN,
                    Map.of("name", bundle, "files", Map.of("cm.yaml", CONFIGMAP)))
                .status())
        .isEqualTo(409);

    Response same =
        f.put(
            "/api/v2/manifest-bundles/" + bundle,
            OWNER_TOKEN,
            Map.of("files", Map.of("cm.yaml", CONFIGMAP)));
    assertThat(same.body().get("revision").asInt()).isEqualTo(1);
    Response updated =
        f.put(
            "/api/v2/manifest-bundles/" + bundle,
            OWNER_TOKEN,
            Map.of("files", Map.of("cm.yaml", CONFIGMAP.replace("\"1\"", "\"2\""))));
    assertThat(updated.status()).isEqualTo(200);
    assertThat(updated.body().get("revision").asInt()).isEqualTo(2);
    assertThat(
            hub.get("/api/v2/manifest-bundles/" + bundle, OWNER_TOKEN)
                .body()
                .get("files")
                .get("cm.yaml")
                .asText())
        .contains("\"2\"");

    String base = uniq("redis");
    Response noKustomization =
        hub.post(
            "/api/v2/kustomize-bases",
            OWNER_TOKEN,
            Map.of("name", base, "files", Map.of("deployment.yaml", CONFIGMAP)));
    assertThat(noKustomization.status()).isEqualTo(400);
    assertThat(reason(noKustomization, "files")).contains("kustomization.yaml");
    assertThat(
            hub.post(
                    "/api/v2/kustomize-bases",
                    OWNER_TOKEN,
                    Map.of(
                        "name",
                        base,
                        "files",
                        Map.of(
                            "kustomization.yaml", "resources:\n- cm.yaml\n", "cm.yaml", CONFIGMAP)))
                .status())
        .isEqualTo(201);
    assertThat(
            hub.get("/api/v2/kustomize-bases", OWNER_TOKEN)
                .body()
                .get("items")
                .findValuesAsText("name"))
        .contains(base);

    // Bound sources cannot be deleted.
    String project = f.project(uniq("bound"));
    String env = f.environment(uniq("env"));
    String tenant = f.tenant(uniq("t"));
    f.put("/api/v2/projects/" + project + "/environments/" + env, OWNER_TOKEN, Map.of());
    f.put("/api/v2/projects/" + project + "/tenants/" + tenant, OWNER_TOKEN, null);
    Response binding =
        hub.post(
            "/api/v2/projects/" + project + "/bindings",
            OWNER_TOKEN,
            Map.of(
                "name",
                "redis",
                "kind",
                "kustomize",
                "source",
                base,
                "targets",
                List.of(Map.of("tenant", tenant, "environment", env))));
    assertThat(binding.status()).as(binding.raw()).isEqualTo(201);
    assertThat(f.delete("/api/v2/kustomize-bases/" + base, OWNER_TOKEN).status()).isEqualTo(409);
    assertThat(f.delete("/api/v2/manifest-bundles/" + bundle, OWNER_TOKEN).status()).isEqualTo(204);
    assertThat(hub.get("/api/v2/manifest-bundles/" + bundle, OWNER_TOKEN).status()).isEqualTo(404);
  }

  // ---- projects
  // -------------------------------------------------------------------------------------

  @Test
  void projectsHaveARepositoryAndAreValidated() {
    String name = uniq("shop");
    Response created =
        hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", name, "description", "the shop"));
    assertThat(created.status()).as(created.raw()).isEqualTo(201);
    String id = created.body().get("id").asText();
    assertThat(created.body().get("configRevision").asLong()).isEqualTo(1);
    assertThat(created.body().get("generatedRevision").asLong()).isZero();
    assertThat(created.body().get("repository").get("cloneUrl").asText())
        .endsWith("/git/default/" + name + ".git");
    assertThat(created.body().get("repository").get("mainBranch").asText()).isEqualTo("main");
    assertThat(created.body().get("createdAt").asText()).isNotBlank();

    List<ProjectRepos.CommitInfo> log = f.log(id);
    assertThat(log).hasSize(1);
    assertThat(log.get(0).message())
        .startsWith("Create project " + name + "\n")
        .contains("GitOpsHQ-Change: project.created");
    assertThat(f.configFile(id, "project.yaml")).contains("name: " + name);

    assertThat(hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", name)).status())
        .isEqualTo(409);
    assertThat(fields(hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", "Shop!"))))
        .containsExactly("name");
    assertThat(hub.get("/api/v2/projects/" + UUID.randomUUID(), OWNER_TOKEN).status())
        .isEqualTo(404);
    assertThat(hub.get("/api/v2/projects/not-a-uuid", OWNER_TOKEN).status()).isEqualTo(400);
    assertThat(
            hub.get("/api/v2/projects", OWNER_TOKEN).body().get("items").findValuesAsText("name"))
        .contains(name);
    assertThat(
            hub.patch("/api/v2/projects/" + id, OWNER_TOKEN, Map.of("description", "new"))
                .body()
                .get("description")
                .asText())
        .isEqualTo("new");

    var dir = f.repos().dir(DeliveryFixtures.orgOf(id), UUID.fromString(id));
    assertThat(Files.isDirectory(dir)).isTrue();
    assertThat(f.delete("/api/v2/projects/" + id, OWNER_TOKEN).status()).isEqualTo(204);
    assertThat(Files.exists(dir)).isFalse();
    assertThat(hub.get("/api/v2/projects/" + id, OWNER_TOKEN).status()).isEqualTo(404);
  }

  // ---- the change pipeline
  // ---------------------------------------------------------------------------

  @Test
  void everyChangeIsOneCommitOnMainWithTrailersAndTheConfigItWrote() {
    String p = f.project(uniq("pipeline"));
    String base = "/api/v2/projects/" + p;
    String dev = f.environment(uniq("dev"));
    String prod = f.environment(uniq("prod"));
    String acme = f.tenant(uniq("acme"));
    String eu = f.cluster(uniq("eu"));
    String chart = f.chartVersion(uniq("webchart"), "1.0.0");
    f.chartVersion(chart, "1.1.0");
    int commits = f.log(p).size();

    // Environments: validation first.
    Response badEnv =
        f.put(
            base + "/environments/" + prod,
            OWNER_TOKEN,
            Map.of(
                "namespacePattern",
                "{{ .tenant }}_{{ .secret }}",
                "clusters",
                List.of(Map.of("cluster", uniq("nope")))));
    assertThat(badEnv.status()).isEqualTo(400);
    assertThat(fields(badEnv)).containsExactly("namespacePattern");
    Response unknownCluster =
        f.put(
            base + "/environments/" + prod,
            OWNER_TOKEN,
            Map.of("clusters", List.of(Map.of("cluster", uniq("nope")))));
    assertThat(fields(unknownCluster)).containsExactly("clusters[0].cluster");
    assertThat(fields(f.put(base + "/environments/" + uniq("nope"), OWNER_TOKEN, Map.of())))
        .containsExactly("environment");
    assertThat(f.log(p)).hasSize(commits);

    Response env =
        f.put(
            base + "/environments/" + prod,
            OWNER_TOKEN,
            Map.of(
                "namespacePattern",
                "{{ .tenant }}-{{.environment}}-app",
                "clusters",
                List.of(Map.of("cluster", eu, "overrides", Map.of("storageClass", "gp3")))));
    assertThat(env.status()).as(env.raw()).isEqualTo(200);
    assertThat(env.body().get("changed").asBoolean()).isTrue();
    assertThat(env.body().get("name").asText()).isEqualTo(prod);
    assertThat(env.body().get("clusters").get(0).get("cluster").asText()).isEqualTo(eu);
    commits = assertOneCommit(p, commits, env, "environment.added", "environment=" + prod);
    assertThat(f.configFile(p, "environments/" + prod + ".yaml"))
        .contains(
            "name: " + eu,
            "storageClass: gp3",
            "namespacePattern: \"{{ .tenant }}-{{.environment}}-app\"");
    f.put(base + "/environments/" + dev, OWNER_TOKEN, Map.of());
    commits++;
    assertThat(
            hub.get(base + "/environments", OWNER_TOKEN)
                .body()
                .get("items")
                .findValuesAsText("name"))
        .containsExactly(dev, prod);
    assertThat(
            hub.get(base + "/environments", OWNER_TOKEN)
                .body()
                .get("items")
                .get(0)
                .get("namespacePattern")
                .asText())
        .isEqualTo("{{ .tenant }}-{{ .environment }}");

    Response tenant = f.put(base + "/tenants/" + acme, OWNER_TOKEN, null);
    commits = assertOneCommit(p, commits, tenant, "tenant.added", "tenant=" + acme);
    assertThat(f.configFile(p, "tenants.yaml")).contains("- " + acme);
    assertThat(fields(f.put(base + "/tenants/" + uniq("nobody"), OWNER_TOKEN, null)))
        .containsExactly("tenant");

    // Workloads.
    Response badWorkload =
        hub.post(
            base + "/workloads",
            OWNER_TOKEN,
            Map.of("name", "web", "chart", uniq("nochart"), "version", "1.0.0"));
    assertThat(fields(badWorkload)).containsExactly("chart");
    assertThat(
            fields(
                hub.post(
                    base + "/workloads",
                    OWNER_TOKEN,
                    Map.of("name", "web", "chart", chart, "version", "7.7.7"))))
        .containsExactly("version");
    assertThat(
            fields(
                hub.post(
                    base + "/workloads",
                    OWNER_TOKEN,
                    Map.of("name", "Web", "imageTagPath", "a..b"))))
        .containsExactlyInAnyOrder("name", "chart", "version", "imageTagPath");
    Response web =
        hub.post(
            base + "/workloads",
            OWNER_TOKEN,
            Map.of(
                "name",
                "web",
                "chart",
                chart,
                "version",
                "1.0.0",
                "values",
                Map.of("image", Map.of("repository", "nginx", "tag", "1.25"), "replicas", 2)));
    assertThat(web.status()).as(web.raw()).isEqualTo(201);
    assertThat(web.body().get("imageTagPath").asText()).isEqualTo("image.tag");
    assertThat(web.body().get("digest").asText()).matches("[0-9a-f]{64}");
    commits = assertOneCommit(p, commits, web, "workload.created", "service=web");
    assertThat(f.configFile(p, "workloads/web.yaml"))
        .contains(
            "chart: " + chart,
            "version: 1.0.0",
            "tag: \"1.25\"",
            "digest: " + web.body().get("digest").asText());

    // A refused change leaves neither a commit nor a new revision.
    long revision = DeliveryFixtures.revision(p);
    Response dup =
        hub.post(
            base + "/workloads",
            OWNER_TOKEN,
            Map.of("name", "web", "chart", chart, "version", "1.0.0"));
    assertThat(dup.status()).isEqualTo(409);
    assertThat(f.log(p)).hasSize(commits);
    assertThat(DeliveryFixtures.revision(p)).isEqualTo(revision);

    Response upgraded =
        f.put(
            base + "/workloads/web",
            OWNER_TOKEN,
            Map.of(
                "chart",
                chart,
                "version",
                "1.1.0",
                "values",
                Map.of("image", Map.of("repository", "nginx", "tag", "1.25"), "replicas", 2)));
    commits = assertOneCommit(p, commits, upgraded, "workload.updated", "service=web");
    assertThat(f.configFile(p, "workloads/web.yaml")).contains("version: 1.1.0");
    assertThat(
            f.put(
                    base + "/workloads/" + uniq("nope"),
                    OWNER_TOKEN,
                    Map.of("chart", chart, "version", "1.1.0"))
                .status())
        .isEqualTo(404);

    // Values for a tenant in an environment.
    Map<String, Object> values =
        Map.of("values", Map.of("replicas", 5, "ingress", Map.of("host", "acme.example.com")));
    Response set = f.put(base + "/values/web/" + acme + "/" + prod, OWNER_TOKEN, values);
    assertThat(set.status()).as(set.raw()).isEqualTo(200);
    commits =
        assertOneCommit(
            p,
            commits,
            set,
            "values.updated",
            "environment=" + prod + " tenant=" + acme + " service=web");
    ProjectRepos.CommitInfo head = f.log(p).get(0);
    assertThat(head.message()).startsWith("Set values of web for " + acme + " in " + prod + "\n");
    assertThat(head.message()).containsPattern("GitOpsHQ-Author: .+ \\(member [0-9a-f-]{36}\\)");
    assertThat(head.authorEmail()).endsWith("@users.gitopshq.invalid");
    assertThat(f.configFile(p, "values/" + prod + "/" + acme + "/web.yaml"))
        .isEqualTo("ingress:\n  host: acme.example.com\nreplicas: 5\n");
    assertThat(
            hub.get(base + "/values/web/" + acme + "/" + prod, OWNER_TOKEN)
                .body()
                .get("values")
                .get("replicas")
                .asInt())
        .isEqualTo(5);

    // The same change again changes nothing.
    long before = DeliveryFixtures.revision(p);
    Response again = f.put(base + "/values/web/" + acme + "/" + prod, OWNER_TOKEN, values);
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.body().get("changed").asBoolean()).isFalse();
    assertThat(again.body().get("revision").asLong()).isEqualTo(before);
    assertThat(again.body().get("commit").asText()).isEqualTo(head.id());
    assertThat(f.log(p)).hasSize(commits);
    assertThat(DeliveryFixtures.revision(p)).isEqualTo(before);

    String globex = f.tenant(uniq("globex"));
    Response notInProject =
        f.put(base + "/values/web/" + globex + "/" + uniq("nowhere"), OWNER_TOKEN, values);
    assertThat(notInProject.status()).isEqualTo(400);
    assertThat(fields(notInProject)).containsExactlyInAnyOrder("tenant", "environment");
    assertThat(
            f.put(base + "/values/" + uniq("nope") + "/" + acme + "/" + prod, OWNER_TOKEN, values)
                .status())
        .isEqualTo(404);

    // Variables: exactly the fields their scope needs.
    Response missing =
        f.put(
            base + "/variables",
            OWNER_TOKEN,
            Map.of("scope", "environment", "key", "X", "value", "1"));
    assertThat(fields(missing)).containsExactly("environment");
    Response extra =
        f.put(
            base + "/variables",
            OWNER_TOKEN,
            Map.of("scope", "project", "tenant", acme, "key", "1X", "value", "1"));
    assertThat(fields(extra)).containsExactlyInAnyOrder("tenant", "key");
    Response var =
        f.put(
            base + "/variables",
            OWNER_TOKEN,
            Map.of(
                "scope",
                "environment",
                "environment",
                prod,
                "key",
                "DOMAIN",
                "value",
                "shop.example.com"));
    commits = assertOneCommit(p, commits, var, "variable.set", "environment=" + prod);
    assertThat(f.configFile(p, "variables.yaml"))
        .contains("key: DOMAIN", "value: shop.example.com", "environment: " + prod);
    assertThat(
            hub.get(base + "/variables", OWNER_TOKEN).body().get("items").findValuesAsText("key"))
        .contains("DOMAIN");
    Response varGone =
        f.delete(
            base + "/variables?scope=environment&environment=" + prod + "&key=DOMAIN", OWNER_TOKEN);
    commits = assertOneCommit(p, commits, varGone, "variable.removed", "environment=" + prod);
    assertThat(
            f.delete(
                    base + "/variables?scope=environment&environment=" + prod + "&key=DOMAIN",
                    OWNER_TOKEN)
                .status())
        .isEqualTo(404);

    // Bindings share the namespace of workloads.
    String bundle = uniq("extras");
    assertThat(
            hub.post(
                    "/api/v2/manifest-bundles",
                    OWNER_TOKEN,
                    Map.of("name", bundle, "files", Map.of("cm.yaml", CONFIGMAP)))
                .status())
        .isEqualTo(201);
    Map<String, Object> binding =
        Map.of(
            "name",
            "extras",
            "kind",
            "manifests",
            "source",
            bundle,
            "targets",
            List.of(Map.of("tenant", acme, "environment", prod)),
            "overlays",
            List.of(
                Map.of(
                    "kind",
                    "ConfigMap",
                    "name",
                    "settings",
                    "patch",
                    Map.of("data", Map.of("b", "2")))));
    Response badBinding =
        hub.post(
            base + "/bindings",
            OWNER_TOKEN,
            Map.of(
                "name",
                "x",
                "kind",
                "helm",
                "source",
                bundle,
                "targets",
                List.of(Map.of("tenant", globex, "environment", prod))));
    assertThat(fields(badBinding)).containsExactly("kind");
    Response badTarget =
        hub.post(
            base + "/bindings",
            OWNER_TOKEN,
            Map.of(
                "name",
                "x",
                "kind",
                "manifests",
                "source",
                bundle,
                "targets",
                List.of(Map.of("tenant", globex, "environment", prod))));
    assertThat(fields(badTarget)).containsExactly("targets[0].tenant");
    Response clash =
        hub.post(
            base + "/bindings",
            OWNER_TOKEN,
            Map.of("name", "web", "kind", "manifests", "source", bundle));
    assertThat(clash.status()).isEqualTo(409);
    Response created = hub.post(base + "/bindings", OWNER_TOKEN, binding);
    assertThat(created.status()).as(created.raw()).isEqualTo(201);
    assertThat(created.body().get("targets").get(0).get("tenant").asText()).isEqualTo(acme);
    commits = assertOneCommit(p, commits, created, "binding.created", "service=extras");
    assertThat(f.configFile(p, "bindings/extras.yaml"))
        .contains(
            "kind: manifests",
            "source: " + bundle,
            "sourceRevision: 1",
            "sha256: ",
            "b: \"2\"",
            "tenant: " + acme);
    assertThat(
            hub.post(
                    base + "/workloads",
                    OWNER_TOKEN,
                    Map.of("name", "extras", "chart", chart, "version", "1.0.0"))
                .status())
        .isEqualTo(409);
    assertThat(
            hub.get(base + "/bindings/extras", OWNER_TOKEN)
                .body()
                .get("overlays")
                .get(0)
                .get("kind")
                .asText())
        .isEqualTo("ConfigMap");

    // History and snapshot.
    Response history = hub.get(base + "/commits?limit=3", OWNER_TOKEN);
    assertThat(history.body().get("items")).hasSize(3);
    // Delivery commits of the generator interleave with configuration commits.
    JsonNode newest = null;
    for (JsonNode item : hub.get(base + "/commits?limit=10", OWNER_TOKEN).body().get("items")) {
      if (!item.get("change").asText().equals("delivery.generated")) {
        newest = item;
        break;
      }
    }
    assertThat(newest).isNotNull();
    assertThat(newest.get("description").asText())
        .isEqualTo("Create manifest binding extras of manifest bundle " + bundle);
    assertThat(newest.get("change").asText()).isEqualTo("binding.created");
    assertThat(newest.get("scope").get("project").asText()).isNotBlank();
    assertThat(newest.get("scope").get("service").asText()).isEqualTo("extras");
    assertThat(newest.get("author").asText()).contains("(member ");
    assertThat(newest.get("parents")).hasSize(1);
    assertThat(hub.get(base + "/commits?limit=0", OWNER_TOKEN).status()).isEqualTo(400);
    JsonNode snapshot = hub.get(base + "/config", OWNER_TOKEN).body();
    assertThat(
            List.of(
                snapshot.get("environments").get(0).get("name").asText(),
                snapshot.get("environments").get(1).get("name").asText()))
        .containsExactly(dev, prod);
    assertThat(snapshot.get("environments")).hasSize(2);
    assertThat(snapshot.get("environments").get(1).get("clusters").get(0).get("name").asText())
        .isEqualTo(eu);
    assertThat(snapshot.get("bindings").get(0).get("files").get("cm.yaml").asText())
        .isEqualTo(CONFIGMAP);
    assertThat(snapshot.get("revision").asLong()).isEqualTo(DeliveryFixtures.revision(p));

    // Removing a tenant removes its values and binding targets in the same commit.
    Response unlinked = f.delete(base + "/tenants/" + acme, OWNER_TOKEN);
    commits = assertOneCommit(p, commits, unlinked, "tenant.removed", "tenant=" + acme);
    assertThat(f.configFile(p, "values/" + prod + "/" + acme + "/web.yaml")).isNull();
    assertThat(f.configFile(p, "bindings/extras.yaml")).doesNotContain("tenant: " + acme);
    Response removed = f.delete(base + "/workloads/web", OWNER_TOKEN);
    commits = assertOneCommit(p, commits, removed, "workload.deleted", "service=web");
    assertThat(f.configFile(p, "workloads/web.yaml")).isNull();

    // The revision counts the commits of config/.
    assertThat(DeliveryFixtures.revision(p)).isEqualTo(commits);
  }

  /** The change made exactly one new commit on main, with the trailers, and answered with it. */
  static int assertOneCommit(
      String projectId, int before, Response r, String change, String scope) {
    assertThat(r.status()).as(r.raw()).isIn(200, 201);
    List<ProjectRepos.CommitInfo> log = f.log(projectId);
    assertThat(log).hasSize(before + 1);
    ProjectRepos.CommitInfo head = log.get(0);
    assertThat(r.body().get("changed").asBoolean()).isTrue();
    assertThat(r.body().get("commit").asText()).isEqualTo(head.id());
    assertThat(r.body().get("revision").asLong()).isEqualTo(DeliveryFixtures.revision(projectId));
    assertThat(head.message())
        .contains("GitOpsHQ-Author: ", "GitOpsHQ-Change: " + change + "\n")
        .containsPattern(
            "GitOpsHQ-Scope: project=[a-z0-9-]+" + (scope.isEmpty() ? "" : " " + scope) + "\n");
    return before + 1;
  }

  @Test
  void aFailureAfterTheGitCommitTakesTheCommitBack() {
    String p = f.project(uniq("undo"));
    UUID orgId = DeliveryFixtures.orgOf(p);
    UUID id = UUID.fromString(p);
    var head = f.repos().head(orgId, id, ProjectRepos.MAIN).orElseThrow();
    long revision = DeliveryFixtures.revision(p);
    ProjectChanges changes = hub.bean(ProjectChanges.class);
    dev.gitopshq.activities.delivery.VariableMapper variables =
        hub.bean(dev.gitopshq.activities.delivery.VariableMapper.class);
    Author author =
        new Author(
            new dev.gitopshq.activities.audit.Actor("member", "test", "Tester"),
            "Tester (member test)");

    // The mutation and the Git commit succeed; the database commit then fails.
    assertThatThrownBy(
            () ->
                changes.apply(
                    orgId,
                    id,
                    author,
                    "config",
                    project -> {
                      variables.upsert(
                          UUID.randomUUID(),
                          orgId,
                          "project",
                          id,
                          null,
                          null,
                          null,
                          "UNDONE",
                          "1",
                          "test",
                          java.time.Instant.now());
                      TransactionSynchronizationManager.registerSynchronization(
                          new TransactionSynchronization() {
                            @Override
                            public void beforeCommit(boolean readOnly) {
                              throw new IllegalStateException("the database refused the commit");
                            }
                          });
                      return new ProjectChanges.Step<>(
                          null, ProjectChanges.Message.of("Set variable UNDONE", "variable.set"));
                    }))
        .hasMessageContaining("the database refused the commit");

    assertThat(f.repos().head(orgId, id, ProjectRepos.MAIN)).contains(head);
    assertThat(f.configFile(p, "variables.yaml")).doesNotContain("UNDONE");
    assertThat(DeliveryFixtures.revision(p)).isEqualTo(revision);
    assertThat(HubTestSupport.count("select count(*) from variables where project_id = ?", id))
        .isZero();

    // The next change commits on top of the old head.
    Response next =
        f.put(
            "/api/v2/projects/" + p + "/variables",
            OWNER_TOKEN,
            Map.of("scope", "project", "key", "KEPT", "value", "1"));
    assertThat(next.body().get("revision").asLong()).isEqualTo(revision + 1);
    assertThat(f.log(p).get(0).parents()).containsExactly(head.name());
  }

  @Test
  void orgLevelChangesCommitIntoEveryProjectTheyChange() {
    String one = f.project(uniq("org-one"));
    String two = f.project(uniq("org-two"));
    int c1 = f.log(one).size();
    int c2 = f.log(two).size();
    String key =
        "REGISTRY_" + UUID.randomUUID().toString().substring(0, 6).toUpperCase().replace('-', '_');

    Response bad = f.put("/api/v2/variables/9bad", OWNER_TOKEN, Map.of("value", "x"));
    assertThat(fields(bad)).containsExactly("key");
    assertThat(
            fields(
                f.put(
                    "/api/v2/variables/" + key,
                    OWNER_TOKEN,
                    Map.of("value", "x".repeat(64 * 1024 + 1)))))
        .containsExactly("value");

    Response set =
        f.put("/api/v2/variables/" + key, OWNER_TOKEN, Map.of("value", "registry.example.com"));
    assertThat(set.status()).as(set.raw()).isEqualTo(200);
    assertThat(set.body().get("key").asText()).isEqualTo(key);
    assertThat(set.body().get("projects").findValuesAsText("id")).contains(one, two);
    for (String p : List.of(one, two)) {
      ProjectRepos.CommitInfo head = f.log(p).get(0);
      assertThat(head.message())
          .startsWith("Set organization variable " + key + "\n")
          .contains("GitOpsHQ-Change: variable.set");
      assertThat(f.configFile(p, "variables.yaml"))
          .contains("key: " + key, "scope: org", "value: registry.example.com");
    }
    assertThat(f.log(one)).hasSize(c1 + 1);
    assertThat(f.log(two)).hasSize(c2 + 1);
    assertThat(
            hub.get("/api/v2/variables", OWNER_TOKEN).body().get("items").findValuesAsText("key"))
        .contains(key);

    // The same value again changes no project.
    Response same =
        f.put("/api/v2/variables/" + key, OWNER_TOKEN, Map.of("value", "registry.example.com"));
    assertThat(same.body().get("projects")).isEmpty();
    assertThat(f.log(one)).hasSize(c1 + 1);

    // A bundle's new files reach only the projects that bind it.
    String bundle = uniq("policies");
    hub.post(
        "/api/v2/manifest-bundles",
        OWNER_TOKEN,
        Map.of("name", bundle, "files", Map.of("cm.yaml", CONFIGMAP)));
    String env = f.environment(uniq("env"));
    String tenant = f.tenant(uniq("t"));
    f.put("/api/v2/projects/" + one + "/environments/" + env, OWNER_TOKEN, Map.of());
    f.put("/api/v2/projects/" + one + "/tenants/" + tenant, OWNER_TOKEN, null);
    assertThat(
            hub.post(
                    "/api/v2/projects/" + one + "/bindings",
                    OWNER_TOKEN,
                    Map.of(
                        "name",
                        "policies",
                        "kind",
                        "manifests",
                        "source",
                        bundle,
                        "targets",
                        List.of(Map.of("tenant", tenant, "environment", env))))
                .status())
        .isEqualTo(201);
    int before1 = f.log(one).size();
    int before2 = f.log(two).size();
    Response updated =
        f.put(
            "/api/v2/manifest-bundles/" + bundle,
            OWNER_TOKEN,
            Map.of(
                "files",
                Map.of("cm.yaml", CONFIGMAP, "cm2.yaml", CONFIGMAP.replace("settings", "more"))));
    assertThat(updated.body().get("projects").findValuesAsText("id")).containsExactly(one);
    assertThat(f.log(one)).hasSize(before1 + 1);
    assertThat(f.log(two)).hasSize(before2);
    assertThat(f.log(one).get(0).message())
        .startsWith("Update manifest bundle " + bundle + " to revision 2");
    assertThat(f.configFile(one, "bindings/policies.yaml")).contains("sourceRevision: 2");

    Response removed = f.delete("/api/v2/variables/" + key, OWNER_TOKEN);
    assertThat(removed.status()).isEqualTo(200);
    assertThat(f.configFile(two, "variables.yaml")).doesNotContain(key);
    assertThat(f.delete("/api/v2/variables/" + key, OWNER_TOKEN).status()).isEqualTo(404);
  }

  // ---- permissions
  // ------------------------------------------------------------------------------------

  @Test
  void rolesAndScopesDecideWhoChangesWhat() {
    String viewer = f.memberToken("viewer");
    String member = f.memberToken("member");
    String p = f.project(uniq("perms"));
    String base = "/api/v2/projects/" + p;
    String env = f.environment(uniq("env"));
    String tenant = f.tenant(uniq("t"));
    String chart = f.chartVersion(uniq("chart"), "0.1.0");
    f.put(base + "/environments/" + env, OWNER_TOKEN, Map.of());
    f.put(base + "/tenants/" + tenant, OWNER_TOKEN, null);
    hub.post(
        base + "/workloads",
        OWNER_TOKEN,
        Map.of("name", "api", "chart", chart, "version", "0.1.0"));
    int commits = f.log(p).size();
    String valuesPath = base + "/values/api/" + tenant + "/" + env;

    // Viewers read everything and change nothing.
    assertThat(hub.get(base + "/workloads", viewer).status()).isEqualTo(200);
    assertThat(hub.get("/api/v2/environments", viewer).status()).isEqualTo(200);
    assertThat(hub.get("/api/v2/charts", viewer).status()).isEqualTo(200);
    Response denied = f.put(valuesPath, viewer, Map.of("values", Map.of("a", 1)));
    assertThat(denied.status()).isEqualTo(403);
    assertThat(denied.body().get("message").asText()).contains("projects:write");
    assertThat(hub.post("/api/v2/environments", viewer, Map.of("name", uniq("x"))).status())
        .isEqualTo(403);
    assertThat(
            f.upload(viewer, DeliveryFixtures.chart(uniq("c"), "1.0.0", "x"), "application/gzip")
                .status())
        .isEqualTo(403);
    assertThat(hub.post(base + "/webhook-secret", viewer, null).status()).isEqualTo(403);
    assertThat(f.log(p)).hasSize(commits);

    // Members change project configuration, not the organization's resources or projects
    // themselves.
    assertThat(f.put(valuesPath, member, Map.of("values", Map.of("a", 1))).status()).isEqualTo(200);
    Response orgWrite = hub.post("/api/v2/tenants", member, Map.of("name", uniq("t")));
    assertThat(orgWrite.status()).isEqualTo(403);
    assertThat(orgWrite.body().get("message").asText()).contains("org:write");
    assertThat(hub.post("/api/v2/projects", member, Map.of("name", uniq("p"))).status())
        .isEqualTo(403);
    assertThat(f.delete(base, member).status()).isEqualTo(403);

    // A CI service account with projects:write changes values.
    String ci = f.serviceAccountToken(List.of("projects:read", "projects:write"));
    Response byCi = f.put(valuesPath, ci, Map.of("values", Map.of("a", 2)));
    assertThat(byCi.status()).as(byCi.raw()).isEqualTo(200);
    assertThat(byCi.body().get("changed").asBoolean()).isTrue();
    assertThat(f.log(p).get(0).message())
        .containsPattern("GitOpsHQ-Author: .+ \\(service account [0-9a-f-]{36}\\)");
    assertThat(f.log(p)).hasSize(commits + 2);
    assertThat(hub.post("/api/v2/variables", ci, Map.of()).status()).isIn(403, 405);
  }

  // ---- the image-update webhook
  // -----------------------------------------------------------------------

  @Test
  void theImageUpdateWebhookSetsTheTagOnlyWithTheProjectsSignature() {
    String name = uniq("hooked");
    String p = f.project(name);
    String chart = f.chartVersion(uniq("svc"), "2.0.0");
    assertThat(
            hub.post(
                    "/api/v2/projects/" + p + "/workloads",
                    OWNER_TOKEN,
                    Map.of(
                        "name",
                        "web",
                        "chart",
                        chart,
                        "version",
                        "2.0.0",
                        "values",
                        Map.of("image", Map.of("repository", "ghcr.io/acme/web", "tag", "1.0.0")),
                        "imageTagPath",
                        "image.tag"))
                .status())
        .isEqualTo(201);
    String noSecret = f.project(uniq("nosecret"));
    hub.post(
        "/api/v2/projects/" + noSecret + "/workloads",
        OWNER_TOKEN,
        Map.of("name", "web", "chart", chart, "version", "2.0.0"));

    Response secret = hub.post("/api/v2/projects/" + p + "/webhook-secret", OWNER_TOKEN, null);
    assertThat(secret.status()).isEqualTo(201);
    String key = secret.body().get("secret").asText();
    assertThat(key).matches("[0-9a-f]{64}");
    assertThat(
            hub.get("/api/v2/projects/" + p, OWNER_TOKEN)
                .body()
                .get("webhookSecretSet")
                .asBoolean())
        .isTrue();
    assertThat(
            HubTestSupport.count(
                "select count(*) from projects where id = ? and position(convert_to(?, 'UTF8') in webhook_secret) > 0",
                UUID.fromString(p),
                key))
        .isZero();
    assertThat(hub.get("/api/v2/projects/" + p, OWNER_TOKEN).raw()).doesNotContain(key);
    int commits = f.log(p).size();

    byte[] body =
        ("{\"project\":\"" + name + "\",\"workload\":\"web\",\"tag\":\"1.4.2\"}")
            .getBytes(StandardCharsets.UTF_8);
    long now = java.time.Instant.now().getEpochSecond();
    String good = ImageUpdateWebhook.signature(key, now, "d-1", body);

    // Everything that does not prove the secret gets the same 401, and nothing changes.
    Response wrong =
        hook(body, ImageUpdateWebhook.signature("0".repeat(64), now, "d-1", body), now, "d-1");
    Response missing = hook(body, null, now, "d-1");
    Response garbage = hook(body, "sha256=zz", now, "d-1");
    // A stale signed timestamp, and a signature over another delivery id or timestamp.
    long stale = now - 3600;
    Response old = hook(body, ImageUpdateWebhook.signature(key, stale, "d-1", body), stale, "d-1");
    Response otherId = hook(body, good, now, "d-2");
    Response otherTime = hook(body, good, now - 1, "d-1");
    byte[] unknownBody =
        ("{\"project\":\"" + uniq("nope") + "\",\"workload\":\"web\",\"tag\":\"1.4.2\"}")
            .getBytes(StandardCharsets.UTF_8);
    Response unknown = signed(key, unknownBody);
    byte[] noSecretBody =
        ("{\"project\":\""
                + hub.get("/api/v2/projects/" + noSecret, OWNER_TOKEN).body().get("name").asText()
                + "\",\"workload\":\"web\",\"tag\":\"1.4.2\"}")
            .getBytes(StandardCharsets.UTF_8);
    Response unset = signed(key, noSecretBody);
    byte[] tampered =
        new String(body, StandardCharsets.UTF_8)
            .replace("1.4.2", "6.6.6")
            .getBytes(StandardCharsets.UTF_8);
    Response changedBody = hook(tampered, good, now, "d-1");
    for (Response r :
        List.of(wrong, missing, garbage, old, otherId, otherTime, unknown, unset, changedBody)) {
      assertThat(r.status()).as(r.raw()).isEqualTo(401);
      assertThat(r.raw()).isEqualTo(wrong.raw());
    }
    assertThat(f.log(p)).hasSize(commits);
    assertThat(f.configFile(p, "workloads/web.yaml")).contains("tag: 1.0.0");

    Response ok = hook(body, good, now, "d-1");
    assertThat(ok.status()).as(ok.raw()).isEqualTo(202);
    assertThat(ok.body().get("changed").asBoolean()).isTrue();
    assertThat(ok.body().get("revision").asLong()).isEqualTo(DeliveryFixtures.revision(p));
    ProjectRepos.CommitInfo head = f.log(p).get(0);
    assertThat(ok.body().get("commit").asText()).isEqualTo(head.id());
    assertThat(head.message())
        .startsWith("Set image tag of web to 1.4.2\n")
        .contains(
            "GitOpsHQ-Author: webhook (image-update)\n",
            "GitOpsHQ-Change: workload.image_updated\n",
            "GitOpsHQ-Scope: project=" + name + " service=web\n");
    assertThat(f.configFile(p, "workloads/web.yaml"))
        .contains("tag: 1.4.2", "repository: ghcr.io/acme/web");
    assertThat(f.log(p)).hasSize(commits + 1);

    // A replay of the same delivery is refused and changes nothing; the same update sent again as
    // a new delivery changes nothing either. A bad tag is refused once the signature holds.
    Response replay = hook(body, good, now, "d-1");
    assertThat(replay.status()).isEqualTo(409);
    assertThat(replay.body().get("message").asText())
        .isEqualTo("delivery d-1 was already received");
    Response again = signed(key, body);
    assertThat(again.status()).isEqualTo(202);
    assertThat(again.body().get("changed").asBoolean()).isFalse();
    byte[] badTag =
        ("{\"project\":\"" + name + "\",\"workload\":\"web\",\"tag\":\"-x y\"}")
            .getBytes(StandardCharsets.UTF_8);
    Response refused = signed(key, badTag);
    assertThat(refused.status()).isEqualTo(400);
    assertThat(fields(refused)).containsExactly("tag");

    // A new secret replaces the old one.
    String rotated =
        hub.post("/api/v2/projects/" + p + "/webhook-secret", OWNER_TOKEN, null)
            .body()
            .get("secret")
            .asText();
    assertThat(signed(key, body).status()).isEqualTo(401);
    assertThat(signed(rotated, body).status()).isEqualTo(202);
  }

  static Response hook(byte[] body, String signature, long timestamp, String delivery) {
    Map<String, String> headers = new java.util.HashMap<>();
    headers.put("Content-Type", "application/json");
    headers.put(ImageUpdateWebhook.TIMESTAMP_HEADER, Long.toString(timestamp));
    headers.put(ImageUpdateWebhook.DELIVERY_HEADER, delivery);
    if (signature != null) {
      headers.put(ImageUpdateWebhook.SIGNATURE_HEADER, signature);
    }
    return f.raw("POST", "/api/v2/webhooks/image-update", null, body, headers);
  }

  /** A fresh delivery, signed with {@code key}. */
  static Response signed(String key, byte[] body) {
    long now = java.time.Instant.now().getEpochSecond();
    String delivery = "d-" + UUID.randomUUID();
    return hook(body, ImageUpdateWebhook.signature(key, now, delivery, body), now, delivery);
  }
}
