package dev.gitopshq.hub.e2e;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.testkube.TestKube;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The inventory end to end: the real agent watches a Kubernetes API (the Fabric8 mock) and the
 * hub's REST API shows what it reported. Secret data never reaches the hub; changes arrive as
 * deltas; the last inventory stays readable while the agent is away; refusals are 403, 404, 409.
 */
class InventoryEndToEndIT {
  static final String SECRET_VALUE = "aHVudGVyMi1kYi1wYXNzd29yZA=="; // hunter2-db-password

  static HubTestSupport hub;
  static TestKube kube;
  static OpaTestServer opa;

  @BeforeAll
  static void start() {
    kube = TestKube.start().seedDemo();
    kube.client()
        .secrets()
        .inNamespace("demo")
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("db-credentials")
                .withNamespace("demo")
                .addToLabels("app", "web")
                .endMetadata()
                .addToData("password", SECRET_VALUE)
                .build())
        .create();
    // The refresh command is decided by the shipped approval policy, on the real OPA.
    hub = HubTestSupport.sharedWithOpa();
    opa = hub.opa();
  }

  @AfterAll
  static void stop() {
    kube.close();
  }

  static Map<String, String> env(String name, String token, Path identity, String capabilities) {
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(AgentConfig.AGENT_TOKEN_PATH, identity.toString());
    env.put(AgentConfig.CLUSTER_NAME, name);
    env.put(AgentConfig.CAPABILITIES, capabilities);
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    env.put(AgentConfig.RECONNECT_MAX_SECONDS, "2");
    env.put(AgentConfig.REGISTRATION_TOKEN, token);
    return env;
  }

  static Map<String, String> withArgoServer(Map<String, String> env) {
    env.put(AgentConfig.ARGOCD_SERVER, "https://argocd.example.com/");
    return env;
  }

  static String[] register(String name) {
    JsonNode created = hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name)).body();
    return new String[] {
      created.get("cluster").get("id").asText(), created.get("registrationToken").asText()
    };
  }

  static JsonNode get(String path) {
    Response r = hub.get(path, OWNER_TOKEN);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    return r.body();
  }

  static List<String> names(JsonNode page) {
    List<String> names = new ArrayList<>();
    page.get("items")
        .forEach(i -> names.add(i.get("kind").asText() + "/" + i.get("name").asText()));
    return names;
  }

  @Test
  void theHubShowsWhatTheAgentSeesButNeverASecretsData() throws Exception {
    String[] c = register("inv-demo");
    String id = c[0];
    Path identity = Files.createTempDirectory("inv").resolve("agent.json");
    try (Agent agent =
        Agent.start(
            AgentConfig.fromEnv(
                withArgoServer(
                    env("inv-demo", c[1], identity, "observe,argocd.read,argocd.write"))),
            kube::client)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> get("/api/v2/clusters/" + id + "/inventory").get("reported").asBoolean());

      // Agent health: the heartbeat carries the agent's status and its round trip is measured.
      await()
          .atMost(Duration.ofSeconds(15))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                JsonNode view = get("/api/v2/clusters/" + id);
                JsonNode h = view.get("health");
                assertThat(h.get("heartbeatLatencyMillis").asInt())
                    .as(view.toString())
                    .isPositive();
                assertThat(h.get("agent").get("heapMaxBytes").asLong()).isPositive();
                assertThat(h.get("agent").get("inventorySynced").asBoolean()).isTrue();
                assertThat(h.get("agent").get("inventoryObjects").asInt()).isPositive();
                assertThat(h.get("uptime24h").asDouble()).isGreaterThan(0);
                assertThat(view.get("versionStatus").asText()).isEqualTo("current");
              });
      JsonNode inv = get("/api/v2/clusters/" + id + "/inventory");
      assertThat(inv.get("connected").asBoolean()).isTrue();
      assertThat(Instant.parse(inv.get("asOf").asText())).isAfter(Instant.now().minusSeconds(60));
      JsonNode demo = null;
      for (JsonNode n : inv.get("namespaces")) {
        if (n.get("name").asText().equals("demo")) {
          demo = n;
        }
      }
      assertThat(demo).as(inv.toString()).isNotNull();
      assertThat(demo.get("kinds").get("Deployment").asLong()).isEqualTo(1);
      assertThat(demo.get("kinds").get("Secret").asLong()).isEqualTo(1);

      JsonNode deployments =
          get("/api/v2/clusters/" + id + "/resources?namespace=demo&kind=Deployment");
      assertThat(names(deployments)).containsExactly("Deployment/" + TestKube.DEMO_DEPLOYMENT);
      JsonNode web = deployments.get("items").get(0);
      assertThat(web.get("group").asText()).isEqualTo("apps");
      assertThat(web.get("status").asText()).matches("\\d+/\\d+ ready");
      assertThat(web.get("health").asText()).isNotBlank();

      // The Secret is listed by name with its key count; its value is nowhere.
      JsonNode secrets = get("/api/v2/clusters/" + id + "/resources?kind=Secret&label=app=web");
      assertThat(names(secrets)).containsExactly("Secret/db-credentials");
      assertThat(secrets.get("items").get(0).get("status").asText()).isEqualTo("Opaque, 1 key");
      assertThat(secrets.toString()).doesNotContain(SECRET_VALUE);
      assertThat(
              HubTestSupport.count(
                  "select count(*) from cluster_resources where cluster_id = ?"
                      + " and (row_to_json(cluster_resources)::text like ?"
                      + " or row_to_json(cluster_resources)::text like ?)",
                  UUID.fromString(id),
                  "%" + SECRET_VALUE + "%",
                  "%hunter2%"))
          .isZero();

      // A new Pod arrives as a delta, without a new snapshot.
      kube.client()
          .pods()
          .inNamespace("demo")
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName("debug-shell")
                  .withNamespace("demo")
                  .endMetadata()
                  .withNewSpec()
                  .addNewContainer()
                  .withName("sh")
                  .withImage("busybox")
                  .endContainer()
                  .endSpec()
                  .build())
          .create();
      await()
          .atMost(Duration.ofSeconds(15))
          .until(
              () ->
                  names(get("/api/v2/clusters/" + id + "/resources?q=debug"))
                      .contains("Pod/debug-shell"));

      // Pages: every object once.
      int total = get("/api/v2/clusters/" + id + "/inventory").get("objects").asInt();
      List<String> seen = new ArrayList<>();
      String cursor = null;
      do {
        JsonNode page =
            get(
                "/api/v2/clusters/"
                    + id
                    + "/resources?limit=3"
                    + (cursor == null ? "" : "&cursor=" + cursor));
        page.get("items").forEach(i -> seen.add(i.get("uid").asText()));
        cursor = page.hasNonNull("nextCursor") ? page.get("nextCursor").asText() : null;
      } while (cursor != null && seen.size() <= total + 3);
      assertThat(seen).hasSize(total).doesNotHaveDuplicates();

      // Argo CD's Applications, live; Hard Refresh is a governed command.
      JsonNode apps = get("/api/v2/clusters/" + id + "/argocd/applications");
      JsonNode demoApp = null;
      for (JsonNode a : apps.get("items")) {
        if (a.get("name").asText().equals(TestKube.DEMO_APPLICATION)) {
          demoApp = a;
        }
      }
      assertThat(demoApp).as(apps.toString()).isNotNull();
      assertThat(demoApp.get("syncStatus").asText()).isEqualTo("Synced");
      assertThat(demoApp.get("health").asText()).isEqualTo("Healthy");
      assertThat(demoApp.get("source").get("targetRevision").asText()).isEqualTo("main");
      assertThat(demoApp.get("history")).hasSize(2);
      assertThat(demoApp.get("url").asText())
          .isEqualTo("https://argocd.example.com/applications/argocd/" + TestKube.DEMO_APPLICATION);
      Response refreshCommand =
          hub.post(
              "/api/v2/clusters/" + id + "/commands",
              OWNER_TOKEN,
              Map.of(
                  "type",
                  "refresh",
                  "target",
                  Map.of(
                      "namespace",
                      TestKube.ARGOCD_NAMESPACE,
                      "kind",
                      "Application",
                      "name",
                      TestKube.DEMO_APPLICATION),
                  "reason",
                  "show the new commit"));
      assertThat(refreshCommand.status()).as(refreshCommand.raw()).isEqualTo(202);
      String commandId = refreshCommand.body().get("id").asText();
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(get("/api/v2/commands/" + commandId).get("status").asText())
                      .as(get("/api/v2/commands/" + commandId).toString())
                      .isEqualTo("completed"));
      assertThat(
              kube.client()
                  .genericKubernetesResources(TestKube.ARGOCD_API_VERSION, "Application")
                  .inNamespace(TestKube.ARGOCD_NAMESPACE)
                  .withName(TestKube.DEMO_APPLICATION)
                  .get()
                  .getMetadata()
                  .getAnnotations())
          .containsEntry("argocd.argoproj.io/refresh", "hard");

      // Inspection reads live through the agent: YAML, labels, and a Secret only redacted.
      JsonNode deployment =
          get(
              "/api/v2/clusters/"
                  + id
                  + "/resources/apps/v1/Deployment/demo/"
                  + TestKube.DEMO_DEPLOYMENT);
      assertThat(deployment.get("yaml").asText()).contains("kind: \"Deployment\"");
      assertThat(deployment.get("yaml").asText()).doesNotContain("managedFields");
      assertThat(deployment.get("eventsIncluded").asBoolean()).isFalse();
      JsonNode secret =
          get("/api/v2/clusters/" + id + "/resources/core/v1/Secret/demo/db-credentials");
      assertThat(secret.get("yaml").asText()).contains("password: \"<redacted>\"");
      assertThat(secret.get("labels").get("app").asText()).isEqualTo("web");
      assertThat(secret.toString()).doesNotContain(SECRET_VALUE);
      Response missing =
          hub.get(
              "/api/v2/clusters/" + id + "/resources/apps/v1/Deployment/demo/nope", OWNER_TOKEN);
      assertThat(missing.status()).as(missing.raw()).isEqualTo(404);
      assertThat(missing.raw()).contains("Deployment demo/nope");
      Response badVersion =
          hub.get(
              "/api/v2/clusters/" + id + "/resources/apps/one/Deployment/demo/web", OWNER_TOKEN);
      assertThat(badVersion.status()).isEqualTo(400);
      assertThat(badVersion.raw()).contains("version");

      assertThat(
              hub.post("/api/v2/clusters/" + id + "/inventory/refresh", OWNER_TOKEN, Map.of())
                  .status())
          .isEqualTo(202);
      assertThat(
              HubTestSupport.count(
                  "select count(*) from audit_log where action = 'inventory.refresh' and target_id = ?",
                  id))
          .isEqualTo(1);
    }

    // The agent is gone: the last inventory stays readable, and a refresh is a clear 409.
    JsonNode away = get("/api/v2/clusters/" + id + "/inventory");
    assertThat(away.get("reported").asBoolean()).isTrue();
    assertThat(away.hasNonNull("asOf")).isTrue();
    Response refresh =
        hub.post("/api/v2/clusters/" + id + "/inventory/refresh", OWNER_TOKEN, Map.of());
    assertThat(refresh.status()).as(refresh.raw()).isEqualTo(409);
    assertThat(refresh.raw()).contains("not connected");
    Response live =
        hub.get("/api/v2/clusters/" + id + "/resources/apps/v1/Deployment/demo/web", OWNER_TOKEN);
    assertThat(live.status()).as(live.raw()).isEqualTo(409);
    assertThat(hub.get("/api/v2/clusters/" + id + "/argocd/applications", OWNER_TOKEN).status())
        .isEqualTo(409);
  }

  @Test
  void refusalsNameTheCapabilityTheFieldOrGiveNothingAway() throws Exception {
    String[] c = register("inv-blind");
    String id = c[0];
    Path identity = Files.createTempDirectory("inv").resolve("agent.json");
    try (Agent agent =
        Agent.start(
            AgentConfig.fromEnv(env("inv-blind", c[1], identity, "kubernetes.scale")),
            kube::client)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
      Response r = hub.post("/api/v2/clusters/" + id + "/inventory/refresh", OWNER_TOKEN, Map.of());
      assertThat(r.status()).as(r.raw()).isEqualTo(403);
      assertThat(r.raw()).contains("observe");
      JsonNode inv = get("/api/v2/clusters/" + id + "/inventory");
      assertThat(inv.get("reported").asBoolean()).isFalse();
      Response inspect =
          hub.get("/api/v2/clusters/" + id + "/resources/apps/v1/Deployment/demo/web", OWNER_TOKEN);
      assertThat(inspect.status()).isEqualTo(403);
      Response argo = hub.get("/api/v2/clusters/" + id + "/argocd/applications", OWNER_TOKEN);
      assertThat(argo.status()).isEqualTo(403);
      assertThat(argo.raw()).contains("argocd.read");
      assertThat(inspect.raw()).contains("observe");
    }

    Response bad = hub.get("/api/v2/clusters/" + id + "/resources?limit=5000", OWNER_TOKEN);
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.raw()).contains("limit");
    assertThat(hub.get("/api/v2/clusters/" + id + "/resources?cursor=zz!", OWNER_TOKEN).raw())
        .contains("cursor");
    assertThat(hub.get("/api/v2/clusters/" + id + "/resources?label=a%20b", OWNER_TOKEN).status())
        .isEqualTo(400);

    // Another organization's cluster is a 404, on every inventory endpoint.
    String slug = "inv-" + UUID.randomUUID().toString().substring(0, 8);
    JsonNode other =
        hub.post(
                "/api/v2/orgs",
                OWNER_TOKEN,
                Map.of(
                    "slug",
                    slug,
                    "name",
                    "Other",
                    "owner",
                    Map.of("email", "o@" + slug + ".example.com", "name", "O")))
            .body();
    String otherToken = other.get("ownerToken").asText();
    assertThat(hub.get("/api/v2/clusters/" + id + "/inventory", otherToken).status())
        .isEqualTo(404);
    assertThat(hub.get("/api/v2/clusters/" + id + "/resources", otherToken).status())
        .isEqualTo(404);
    assertThat(
            hub.post("/api/v2/clusters/" + id + "/inventory/refresh", otherToken, Map.of())
                .status())
        .isEqualTo(404);
    assertThat(
            hub.get("/api/v2/clusters/" + id + "/resources/apps/v1/Deployment/demo/web", otherToken)
                .status())
        .isEqualTo(404);
  }
}
