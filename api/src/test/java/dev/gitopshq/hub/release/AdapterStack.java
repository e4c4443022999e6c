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
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.testkube.RealKube;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * What the adapter wiring tests share: a hub whose clone URLs the adapter reaches on loopback, OPA,
 * an organization with a release environment that verifies and a later one (so the first is
 * auto-approved), a tenant, a manifest bundle with one Deployment, a project, and a registered
 * cluster whose agent (on the real control plane, as its admin) has the given capabilities.
 */
final class AdapterStack implements AutoCloseable {
  final HubTestSupport hub;
  final OpaTestServer opa;
  final Agent agent;
  final KubernetesClient agentClient;
  final String projectId;
  final String clusterId;

  private AdapterStack(
      HubTestSupport hub,
      OpaTestServer opa,
      Agent agent,
      KubernetesClient agentClient,
      String projectId,
      String clusterId) {
    this.hub = hub;
    this.opa = opa;
    this.agent = agent;
    this.agentClient = agentClient;
    this.projectId = projectId;
    this.clusterId = clusterId;
  }

  /**
   * @param env the environment the tests bind (it verifies within 180 s); {@code env + "-last"} is
   *     created after it
   */
  static AdapterStack start(
      RealKube kube,
      String env,
      String tenant,
      String cluster,
      String project,
      String bundle,
      String capabilities)
      throws Exception {
    OpaTestServer opa = OpaTestServer.startNew();
    int port = HubTestSupport.freePort();
    HubTestSupport hub =
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
    ReleaseEndToEndIT.environment(env);
    ReleaseEndToEndIT.environment(env + "-last");
    ReleaseEndToEndIT.tenant(tenant);
    ok(
        hub.send(
            "PATCH",
            "/api/v2/environments/" + env,
            OWNER_TOKEN,
            Map.of("verifyTimeoutSeconds", 180)));

    JsonNode created = ok(hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", cluster)));
    Map<String, String> agentEnv = new HashMap<>();
    agentEnv.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    agentEnv.put(AgentConfig.HUB_PLAINTEXT, "true");
    agentEnv.put(
        AgentConfig.AGENT_TOKEN_PATH,
        Files.createTempDirectory(cluster).resolve("a.json").toString());
    agentEnv.put(AgentConfig.CLUSTER_NAME, cluster);
    agentEnv.put(AgentConfig.CAPABILITIES, capabilities);
    agentEnv.put(AgentConfig.REGISTRATION_TOKEN, created.get("registrationToken").asText());
    KubernetesClient agentClient = kube.adminClient();
    Agent agent =
        Agent.start(
            AgentConfig.fromEnv(agentEnv),
            new DirectDeployConfig("gitopshq-it", ""),
            () -> agentClient);
    assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();

    ok(
        hub.post(
            "/api/v2/manifest-bundles",
            OWNER_TOKEN,
            Map.of("name", bundle, "files", Map.of("deployment.yaml", deployment("1")))));
    String projectId =
        ok(hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", project))).get("id").asText();
    ReleaseEndToEndIT.projectId = projectId;
    return new AdapterStack(
        hub, opa, agent, agentClient, projectId, created.get("cluster").get("id").asText());
  }

  @Override
  public void close() {
    for (AutoCloseable c : new AutoCloseable[] {agent, hub, opa, agentClient}) {
      try {
        c.close();
      } catch (Exception e) {
        // Best effort.
      }
    }
  }

  String project(String path) {
    return "/api/v2/projects/" + projectId + path;
  }

  /** Waits for the deployment's status and returns the deployment. */
  JsonNode awaitStatus(String deploymentId, String status, Duration atMost) {
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

  @SuppressWarnings("unchecked")
  static Map<String, Object> spec(GenericKubernetesResource r) {
    return (Map<String, Object>) r.getAdditionalProperties().get("spec");
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> status(GenericKubernetesResource r) {
    return (Map<String, Object>) r.getAdditionalProperties().get("status");
  }

  static JsonNode ok(Response r) {
    assertThat(r.status()).as(r.raw()).isBetween(200, 299);
    return r.body();
  }
}
