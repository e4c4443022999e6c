package dev.gitopshq.hub.release;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.config.DirectDeployConfig;
import dev.gitopshq.agent.v1.AdapterNames;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.testkube.RealKube;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The Argo CD twin of {@link AdapterWiringIT}, on the real repo-server and application-controller
 * (v3.6.1, {@link RealKube#withArgoCd()}): a cluster bound in {@code argocd} mode gets from its
 * agent the repository Secret, an AppProject limited to the tenant's namespace and the fence's
 * kinds, and an Application in it; the deployment ends when Argo CD reports the commit Synced and
 * Healthy; unbinding removes them. Every status here is Argo CD's own.
 *
 * <p>The Flux original: issue 24 items 5 and 6, end to end on the real API server with the real
 * Flux controllers: a cluster whose agent has adapter.wire is bound in {@code flux} mode, and
 * registering it and binding it is all the user does. A release commits the deploy branch; the hub
 * has the agent create the GitRepository (with a deploy token the hub issued, stored only in the
 * cluster's Secret), the tenant's ServiceAccount with RBAC derived from the project's fence, and
 * the Kustomization that runs as it; Flux applies the objects; the deployment is {@code deployed}
 * only once Flux reports the commit applied and healthy. Unbinding removes the adapter objects (and
 * with them, by Flux's prune, the delivered objects) and revokes the token. Every status here is
 * Flux's own.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ArgoWiringIT {
  static final String S = UUID.randomUUID().toString().substring(0, 6);
  static final String ENV = "ax-dev";
  static final String CLUSTER = "ax-" + S;
  static final String TENANT = "acme";
  static final String NS = "ax" + S + "-acme";
  static final String PROJECT = "ax-shop-" + S;
  static final String BUNDLE = "ax-app-" + S;

  static RealKube kube;
  static KubernetesClient admin;
  static OpaTestServer opa;
  static HubTestSupport hub;
  static Agent agent;
  static KubernetesClient agentClient;
  static String projectId;
  static String clusterId;

  @BeforeAll
  static void start() throws Exception {
    kube = RealKube.shared().withArgoCd();
    admin = kube.adminClient();
    opa = OpaTestServer.startNew();
    // Argo CD fetches from the hub: the clone URLs name the port it listens on.
    int port = HubTestSupport.freePort();
    hub =
        new HubTestSupport()
            .property("server.port", port)
            .property("gitopshq.git.public-url", "http://127.0.0.1:" + port)
            .property("opa.url", opa.url())
            .property("opa.token", opa.token())
            .property("opa.republish-interval", "1s")
            .start();
    ReleaseEndToEndIT.hub = hub;
    ReleaseEndToEndIT.orgId = UUID.fromString(ReleaseEndToEndIT.orgOf());
    ReleaseEndToEndIT.repos = hub.bean(ProjectRepos.class);
    ReleaseEndToEndIT.awaitReleasePolicies();
    ReleaseEndToEndIT.environment(ENV);
    ReleaseEndToEndIT.environment("ax-last");
    ReleaseEndToEndIT.tenant(TENANT);
    ok(
        hub.send(
            "PATCH",
            "/api/v2/environments/" + ENV,
            OWNER_TOKEN,
            Map.of("verifyTimeoutSeconds", 180)));

    JsonNode created = ok(hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", CLUSTER)));
    clusterId = created.get("cluster").get("id").asText();
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(
        AgentConfig.AGENT_TOKEN_PATH, Files.createTempDirectory("ax").resolve("a.json").toString());
    env.put(AgentConfig.CLUSTER_NAME, CLUSTER);
    env.put(AgentConfig.CAPABILITIES, "observe,argocd.read,adapter.wire");
    env.put(AgentConfig.REGISTRATION_TOKEN, created.get("registrationToken").asText());
    agentClient = kube.adminClient();
    agent =
        Agent.start(
            AgentConfig.fromEnv(env), new DirectDeployConfig("gitopshq-it", ""), () -> agentClient);
    assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();

    ok(
        hub.post(
            "/api/v2/manifest-bundles",
            OWNER_TOKEN,
            Map.of("name", BUNDLE, "files", Map.of("deployment.yaml", deployment("1")))));
    projectId =
        ok(hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", PROJECT))).get("id").asText();
    ReleaseEndToEndIT.projectId = projectId;
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : new AutoCloseable[] {agent, hub, opa, agentClient}) {
      if (c != null) {
        try {
          c.close();
        } catch (Exception e) {
          // Best effort.
        }
      }
    }
    if (admin != null) {
      admin.namespaces().withName(NS).delete();
      admin.close();
    }
  }

  static String deployment(String tag) {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web
        spec:
          replicas: 1
          selector:
            matchLabels: {app: web}
          template:
            metadata:
              labels: {app: web}
            spec:
              containers:
              - name: web
                image: registry.example/web:%s
        """
        .formatted(tag);
  }

  @Test
  @Order(1)
  void bindingAClusterInArgoModeAndReleasingIsAllItTakesAndTheDeploymentEndsWhenArgoRunsIt() {
    admin
        .namespaces()
        .resource(
            new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                .withNewMetadata()
                .withName(NS)
                .endMetadata()
                .build())
        .serverSideApply();
    ok(
        hub.send(
            "PUT",
            project("/environments/" + ENV),
            OWNER_TOKEN,
            Map.of(
                "namespacePattern",
                "ax" + S + "-{{ .tenant }}",
                "clusters",
                List.of(Map.of("cluster", CLUSTER, "deliveryMode", "argocd")))));
    ok(hub.send("PUT", project("/tenants/" + TENANT), OWNER_TOKEN, Map.of()));
    ok(
        hub.post(
            project("/bindings"),
            OWNER_TOKEN,
            Map.of(
                "name",
                "app",
                "kind",
                "manifests",
                "source",
                BUNDLE,
                "targets",
                List.of(Map.of("tenant", TENANT, "environment", ENV)))));
    ReleaseEndToEndIT.Generator.awaitDelivered();

    Response r = hub.post(project("/releases"), OWNER_TOKEN, Map.of("description", "first"));
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    String deploymentId = r.body().get("deployment").get("id").asText();
    JsonNode done = awaitStatus(deploymentId, "deployed", Duration.ofMinutes(3));

    String name = AdapterNames.name(PROJECT, ENV, TENANT);
    Deployment web = admin.apps().deployments().inNamespace(NS).withName("web").get();
    assertThat(web).isNotNull();
    assertThat(web.getMetadata().getManagedFields())
        .extracting(ManagedFieldsEntry::getManager)
        .contains("argocd-controller");
    GenericKubernetesResource app =
        admin
            .genericKubernetesResources("argoproj.io/v1alpha1", "Application")
            .inNamespace("argocd")
            .withName(name)
            .get();
    assertThat(spec(app)).containsEntry("project", name);
    @SuppressWarnings("unchecked")
    Map<String, Object> sync = (Map<String, Object>) status(app).get("sync");
    String commit = done.get("commits").get(ENV).asText();
    assertThat(sync).containsEntry("status", "Synced").containsEntry("revision", commit);
    assertThat(done.toString()).contains(CLUSTER).contains("argocd/" + name);

    // The AppProject allows this tenant's namespace and nothing cluster-scoped.
    GenericKubernetesResource appProject =
        admin
            .genericKubernetesResources("argoproj.io/v1alpha1", "AppProject")
            .inNamespace("argocd")
            .withName(name)
            .get();
    assertThat(spec(appProject).get("destinations"))
        .isEqualTo(List.of(Map.of("server", "https://kubernetes.default.svc", "namespace", NS)));
    assertThat(spec(appProject).get("namespaceResourceBlacklist").toString())
        .contains("rbac.authorization.k8s.io");
    assertThat(
            admin
                .secrets()
                .inNamespace("argocd")
                .withName(AdapterNames.credential(PROJECT, "argocd"))
                .get()
                .getMetadata()
                .getLabels())
        .containsEntry("argocd.argoproj.io/secret-type", "repository");

    JsonNode adapters = ok(hub.get("/api/v2/clusters/" + clusterId + "/adapters", OWNER_TOKEN));
    JsonNode binding = adapters.get("bindings").get(0);
    assertThat(binding.get("outcome").asText()).as(adapters.toString()).isEqualTo("wired");
    assertThat(binding.get("adapter").asText()).isEqualTo("argocd");
  }

  @Test
  @Order(2)
  void unbindingTheClusterRemovesTheApplicationAndItsProject() {
    ok(
        hub.send(
            "PUT",
            project("/environments/" + ENV),
            OWNER_TOKEN,
            Map.of("namespacePattern", "ax" + S + "-{{ .tenant }}", "clusters", List.of())));
    String name = AdapterNames.name(PROJECT, ENV, TENANT);
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              assertThat(
                      admin
                          .genericKubernetesResources("argoproj.io/v1alpha1", "Application")
                          .inNamespace("argocd")
                          .withName(name)
                          .get())
                  .isNull();
              assertThat(
                      admin
                          .genericKubernetesResources("argoproj.io/v1alpha1", "AppProject")
                          .inNamespace("argocd")
                          .withName(name)
                          .get())
                  .isNull();
            });
    // Argo CD's resources finalizer removed what the Application had delivered.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(admin.apps().deployments().inNamespace(NS).withName("web").get())
                    .isNull());
  }

  // ---- helpers ------------------------------------------------------------------------------

  static JsonNode awaitStatus(String deploymentId, String status, Duration atMost) {
    JsonNode[] last = new JsonNode[1];
    await()
        .atMost(atMost)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              last[0] = ok(hub.get(project("/deployments/" + deploymentId), OWNER_TOKEN));
              assertThat(last[0].get("status").asText()).as(last[0].toString()).isEqualTo(status);
            });
    return last[0];
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> spec(GenericKubernetesResource r) {
    return (Map<String, Object>) r.getAdditionalProperties().get("spec");
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> status(GenericKubernetesResource r) {
    return (Map<String, Object>) r.getAdditionalProperties().get("status");
  }

  static String project(String path) {
    return "/api/v2/projects/" + projectId + path;
  }

  static JsonNode ok(Response r) {
    assertThat(r.status()).as(r.raw()).isBetween(200, 299);
    return r.body();
  }
}
