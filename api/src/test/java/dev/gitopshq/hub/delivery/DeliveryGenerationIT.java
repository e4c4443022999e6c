package dev.gitopshq.hub.delivery;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static dev.gitopshq.hub.delivery.DeliveryFixtures.uniq;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.render.HelmCli;
import dev.gitopshq.activities.render.TarGz;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.hub.delivery.image.ImageUpdateWebhook;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Configuration changes through the REST API become deliveries on main: the generation workflow
 * runs on the hub's worker, renders on the render workers and commits {@code rendered/}. The output
 * is compared with the helm CLI's {@code template} of the same chart and values.
 */
class DeliveryGenerationIT {
  static final ObjectMapper JSON = new ObjectMapper();
  static HubTestSupport hub;
  static DeliveryFixtures f;
  static byte[] webapp;

  @TempDir Path tmp;
  String project;
  String projectName;
  String env;
  String tenant;
  String cluster;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.shared();
    f = new DeliveryFixtures(hub);
    webapp = TarGz.webapp().build();
    Response r = f.upload(OWNER_TOKEN, webapp, "application/gzip");
    assertThat(r.status()).as(r.raw()).isIn(200, 201);
  }

  /** A project delivering workload web (chart webapp) for one tenant to one cluster. */
  @BeforeEach
  void project() {
    projectName = uniq("shop");
    project = f.project(projectName);
    env = f.environment(uniq("prod"));
    tenant = f.tenant(uniq("acme"));
    cluster = f.cluster(uniq("eu"));
    f.ok(
        f.put(
            "/api/v2/projects/" + project + "/environments/" + env,
            OWNER_TOKEN,
            Map.of("clusters", List.of(Map.of("cluster", cluster)))),
        200);
    f.ok(f.put("/api/v2/projects/" + project + "/tenants/" + tenant, OWNER_TOKEN, Map.of()), 200);
    f.ok(
        hub.post(
            "/api/v2/projects/" + project + "/workloads",
            OWNER_TOKEN,
            Map.of(
                "name",
                "web",
                "chart",
                "webapp",
                "version",
                "1.2.0",
                "values",
                Map.of("image", Map.of("tag", "1.4.2"), "env", Map.of("LOG_LEVEL", "${LOG}")))),
        201);
    f.ok(
        f.put(
            "/api/v2/projects/" + project + "/variables",
            OWNER_TOKEN,
            Map.of("scope", "project", "key", "LOG", "value", "debug")),
        200);
  }

  /** Waits for the generation of the project's current revision to end, and returns it. */
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

  ObjectId head() {
    return f.repos()
        .head(DeliveryFixtures.orgOf(project), UUID.fromString(project), ProjectRepos.MAIN)
        .orElseThrow();
  }

  SortedMap<String, byte[]> rendered(ObjectId commit) {
    return f.repos()
        .readFiles(DeliveryFixtures.orgOf(project), UUID.fromString(project), commit, "rendered");
  }

  @Test
  void aConfigurationChangeIsRenderedExactlyAsHelmTemplatesTheSameChartAndValues()
      throws Exception {
    f.ok(
        f.put(
            "/api/v2/projects/" + project + "/values/web/" + tenant + "/" + env,
            OWNER_TOKEN,
            Map.of("values", Map.of("replicaCount", 3))),
        200);
    JsonNode g = generated();

    assertThat(g.get("status").asText()).as(g.toString()).isEqualTo("committed");
    assertThat(g.get("commit").asText()).isEqualTo(head().name());
    String unit = env + "/" + cluster + "/" + tenant + "/web/";
    SortedMap<String, byte[]> files = rendered(head());
    assertThat(files.keySet())
        .allMatch(p -> p.startsWith(unit))
        .contains(unit + "deployment-web.yaml");

    // The helm CLI's template of the same archive with the values the hub merged by hand.
    Path chart = tmp.resolve("webapp-1.2.0.tgz");
    Files.write(chart, webapp);
    Path values = tmp.resolve("values.json");
    Files.writeString(
        values,
        JSON.writeValueAsString(
            Map.of(
                "image",
                Map.of("tag", "1.4.2"),
                "env",
                Map.of("LOG_LEVEL", "debug"),
                "replicaCount",
                3)));
    String helm = HelmCli.template(chart, "web", tenant + "-" + env, values);
    List<String> expected = documents(helm);
    List<String> actual = new ArrayList<>();
    files.values().forEach(b -> actual.addAll(documents(new String(b, StandardCharsets.UTF_8))));
    assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(String.join("\n", actual)).contains("replicas: 3", "LOG_LEVEL: \"debug\"", "1.4.2");

    ProjectRepos.CommitInfo delivery =
        f.repos()
            .log(DeliveryFixtures.orgOf(project), UUID.fromString(project), ProjectRepos.MAIN, 1)
            .get(0);
    assertThat(delivery.author()).isEqualTo("GitOpsHQ delivery generator");
    assertThat(delivery.message())
        .contains("GitOpsHQ-Change: delivery.generated", "tenants=" + tenant);
  }

  @Test
  void theSameInputsProduceNoNewDeliveryCommit() {
    JsonNode first = generated();
    assertThat(first.get("status").asText()).isEqualTo("committed");
    int commits = f.log(project).size();

    // The same values again: no configuration commit at all.
    Response same =
        f.put(
            "/api/v2/projects/" + project + "/variables",
            OWNER_TOKEN,
            Map.of("scope", "project", "key", "LOG", "value", "debug"));
    assertThat(same.body().get("changed").asBoolean()).isFalse();
    // A variable nothing references: a configuration commit, and a generation with nothing to
    // commit.
    f.ok(
        f.put(
            "/api/v2/projects/" + project + "/variables",
            OWNER_TOKEN,
            Map.of("scope", "project", "key", "UNUSED", "value", "x")),
        200);
    JsonNode second = generated();

    assertThat(second.get("status").asText()).as(second.toString()).isEqualTo("unchanged");
    assertThat(f.log(project)).hasSize(commits + 1);
    assertThat(
            f.repos()
                .log(
                    DeliveryFixtures.orgOf(project), UUID.fromString(project), ProjectRepos.MAIN, 1)
                .get(0)
                .message())
        .as("the newest commit on main is the configuration change, no delivery after it")
        .contains("GitOpsHQ-Change: variable.set");
    assertThat(rendered(head()).keySet())
        .isEqualTo(rendered(ObjectId.fromString(first.get("commit").asText())).keySet());
  }

  @Test
  void aOneValueChangeRendersOnlyTheUnitItReachesAndTheGenerationSaysSo() {
    f.ok(
        hub.post(
            "/api/v2/projects/" + project + "/workloads",
            OWNER_TOKEN,
            Map.of("name", "api", "chart", "webapp", "version", "1.2.0", "values", Map.of())),
        201);
    JsonNode first = generated();
    assertThat(first.get("status").asText()).as(first.toString()).isEqualTo("committed");
    assertThat(first.get("units").asInt()).isEqualTo(2);
    // api is new; web may reuse the tree of the set-up's own generation if that one finished
    // before this revision was planned.
    assertThat(first.get("rendered").asInt()).isBetween(1, 2);
    assertThat(first.get("rendered").asInt() + first.get("reused").asInt()).isEqualTo(2);
    ObjectId firstCommit = ObjectId.fromString(first.get("commit").asText());

    f.ok(
        f.put(
            "/api/v2/projects/" + project + "/values/web/" + tenant + "/" + env,
            OWNER_TOKEN,
            Map.of("values", Map.of("replicaCount", 4))),
        200);
    JsonNode second = generated();

    assertThat(second.get("status").asText()).as(second.toString()).isEqualTo("committed");
    assertThat(second.get("rendered").asInt()).as(second.toString()).isEqualTo(1);
    assertThat(second.get("reused").asInt()).isEqualTo(1);
    assertThat(second.get("detail").asText()).isEqualTo("1 of 2 units changed");
    UUID org = DeliveryFixtures.orgOf(project);
    String unit = "rendered/" + env + "/" + cluster + "/" + tenant + "/";
    ObjectId secondCommit = ObjectId.fromString(second.get("commit").asText());
    assertThat(f.repos().treeAt(org, UUID.fromString(project), secondCommit, unit + "api"))
        .as("api's tree is the one the first generation committed")
        .isEqualTo(f.repos().treeAt(org, UUID.fromString(project), firstCommit, unit + "api"));
    assertThat(
            new String(
                rendered(secondCommit)
                    .get(env + "/" + cluster + "/" + tenant + "/web/deployment-web.yaml"),
                StandardCharsets.UTF_8))
        .contains("replicas: 4");
    // The list shows the same counts.
    JsonNode listed =
        hub.get("/api/v2/projects/" + project + "/generations?limit=1", OWNER_TOKEN)
            .body()
            .get("items")
            .get(0);
    assertThat(listed.get("rendered").asInt()).isEqualTo(1);
    assertThat(listed.get("reused").asInt()).isEqualTo(1);
    // And the metrics count the reused units (reported by the workflow when it ends).
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(300))
        .untilAsserted(
            () ->
                assertThat(
                        HubTestSupport.metric(
                            hub.get("/actuator/prometheus", OWNER_TOKEN).raw(),
                            "gitopshq_generation_units_reused_total",
                            "status=\"committed\""))
                    .isGreaterThanOrEqualTo(1));
  }

  @Test
  void anImageUpdateFromCiIsDeliveredToEveryTenant() {
    generated();
    String key =
        hub.post("/api/v2/projects/" + project + "/webhook-secret", OWNER_TOKEN, null)
            .body()
            .get("secret")
            .asText();
    byte[] body =
        ("{\"project\":\"" + projectName + "\",\"workload\":\"web\",\"tag\":\"2.0.1\"}")
            .getBytes(StandardCharsets.UTF_8);
    long signedAt = java.time.Instant.now().getEpochSecond();
    Response hook =
        f.raw(
            "POST",
            "/api/v2/webhooks/image-update",
            null,
            body,
            Map.of(
                "Content-Type",
                "application/json",
                ImageUpdateWebhook.TIMESTAMP_HEADER,
                Long.toString(signedAt),
                ImageUpdateWebhook.DELIVERY_HEADER,
                "gen-1",
                ImageUpdateWebhook.SIGNATURE_HEADER,
                ImageUpdateWebhook.signature(key, signedAt, "gen-1", body)));
    assertThat(hook.status()).as(hook.raw()).isEqualTo(202);
    JsonNode g = generated();

    assertThat(g.get("status").asText()).isEqualTo("committed");
    String deployment =
        new String(
            rendered(head()).get(env + "/" + cluster + "/" + tenant + "/web/deployment-web.yaml"),
            StandardCharsets.UTF_8);
    assertThat(deployment).contains(":2.0.1").doesNotContain("1.4.2");
  }

  @Test
  void aChartThatCannotRenderFailsTheGenerationAndMainKeepsTheLastDelivery() {
    JsonNode good = generated();
    byte[] strict =
        TarGz.webappWith(
            Map.of(
                "webapp/Chart.yaml",
                TarGz.webappFile("Chart.yaml").replace("version: 1.2.0", "version: 1.3.0-strict"),
                "webapp/templates/required.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-db\ndata:\n"
                    + "  host: {{ required \"dbHost is required\" .Values.dbHost }}\n"));
    Response up = f.upload(OWNER_TOKEN, strict, "application/gzip");
    assertThat(up.status()).as(up.raw()).isIn(200, 201);
    f.ok(
        f.put(
            "/api/v2/projects/" + project + "/workloads/web",
            OWNER_TOKEN,
            Map.of(
                "chart",
                "webapp",
                "version",
                "1.3.0-strict",
                "values",
                Map.of("image", Map.of("tag", "1.4.2")))),
        200);
    JsonNode failed = generated();

    assertThat(failed.get("status").asText()).as(failed.toString()).isEqualTo("failed");
    assertThat(failed.get("detail").asText()).contains("dbHost is required").contains(tenant);
    SortedMap<String, byte[]> now = rendered(head());
    SortedMap<String, byte[]> before = rendered(ObjectId.fromString(good.get("commit").asText()));
    assertThat(now.keySet()).isEqualTo(before.keySet());
    now.forEach((path, bytes) -> assertThat(bytes).as(path).isEqualTo(before.get(path)));

    // A failed revision can be generated again by hand (here it fails again: the chart still
    // needs the value); a delivered one cannot.
    Response again = hub.post("/api/v2/projects/" + project + "/generations", OWNER_TOKEN, null);
    assertThat(again.status()).as(again.raw()).isEqualTo(202);
    await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () -> {
              JsonNode g =
                  hub.get(
                          "/api/v2/projects/"
                              + project
                              + "/generations/"
                              + DeliveryFixtures.revision(project),
                          OWNER_TOKEN)
                      .body();
              return g != null
                  && g.has("id")
                  && !g.get("id").asText().equals(failed.get("id").asText())
                  && g.get("status").asText().equals("failed");
            });
    f.ok(
        f.put(
            "/api/v2/projects/" + project + "/workloads/web",
            OWNER_TOKEN,
            Map.of(
                "chart",
                "webapp",
                "version",
                "1.3.0-strict",
                "values",
                Map.of("dbHost", "db.internal"))),
        200);
    assertThat(generated().get("status").asText()).isEqualTo("committed");
    Response delivered =
        hub.post("/api/v2/projects/" + project + "/generations", OWNER_TOKEN, null);
    assertThat(delivered.status()).as(delivered.raw()).isEqualTo(409);
  }

  @Test
  void aClusterThatReceivesDeliveriesCannotBeDeletedUntilUnbound() {
    String id = null;
    for (JsonNode c : hub.get("/api/v2/clusters", OWNER_TOKEN).body().get("items")) {
      if (c.get("name").asText().equals(cluster)) {
        id = c.get("id").asText();
      }
    }
    Response refused = f.delete("/api/v2/clusters/" + id, OWNER_TOKEN);
    assertThat(refused.status()).as(refused.raw()).isEqualTo(409);
    assertThat(refused.body().get("message").asText()).contains(projectName + "/" + env);

    f.ok(
        f.put(
            "/api/v2/projects/" + project + "/environments/" + env,
            OWNER_TOKEN,
            Map.of("clusters", List.of())),
        200);
    assertThat(f.delete("/api/v2/clusters/" + id, OWNER_TOKEN).status()).isEqualTo(204);
  }

  /** The YAML documents of a multi-document stream, trimmed, without empty ones. */
  static List<String> documents(String yaml) {
    return Arrays.stream(yaml.split("(?m)^---\\s*$"))
        .map(String::strip)
        .filter(d -> !d.isEmpty())
        .toList();
  }
}
