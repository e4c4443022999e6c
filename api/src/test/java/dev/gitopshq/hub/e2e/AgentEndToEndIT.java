package dev.gitopshq.hub.e2e;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.testkube.TestKube;
import io.fabric8.kubernetes.api.model.Secret;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The first capability end to end: register a cluster over REST, run the real agent against the
 * Fabric8 mock Kubernetes API with its identity in a Secret, restart the agent (it must not
 * register again), watch heartbeats, kill and restart the hub, and see the agent come back.
 */
class AgentEndToEndIT {
  static HubTestSupport hub;
  static TestKube kube;

  @BeforeAll
  static void start() {
    kube = TestKube.start();
    hub = new HubTestSupport().start();
  }

  @AfterAll
  static void stop() {
    hub.close();
    kube.close();
  }

  static Map<String, String> env(String clusterName, String registrationToken) {
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(AgentConfig.IDENTITY_STORE_MODE, "secret");
    env.put(AgentConfig.IDENTITY_SECRET_NAMESPACE, "gitopshq-system");
    env.put(AgentConfig.IDENTITY_SECRET_NAME, "identity-" + clusterName);
    env.put(AgentConfig.CLUSTER_NAME, clusterName);
    env.put(AgentConfig.CAPABILITIES, "observe,argocd.read,kubernetes.scale");
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    env.put(AgentConfig.RECONNECT_MAX_SECONDS, "2");
    if (registrationToken != null) {
      env.put(AgentConfig.REGISTRATION_TOKEN, registrationToken);
    }
    return env;
  }

  static JsonNode cluster(String id) {
    return hub.get("/api/v2/clusters/" + id, OWNER_TOKEN).body();
  }

  @Test
  void registersPersistsToASecretReconnectsWithoutRegisteringAndSurvivesAHubRestart()
      throws Exception {
    JsonNode created =
        hub.post(
                "/api/v2/clusters",
                OWNER_TOKEN,
                Map.of(
                    "name",
                    "e2e-prod",
                    "environment",
                    "production",
                    "labels",
                    Map.of("tier", "production")))
            .body();
    String id = created.get("cluster").get("id").asText();
    String registrationToken = created.get("registrationToken").asText();

    // First start: registers once and stores its identity in a Kubernetes Secret.
    try (Agent agent =
        Agent.start(AgentConfig.fromEnv(env("e2e-prod", registrationToken)), kube::client)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
      assertThat(agent.registerCalls()).isEqualTo(1);
      assertThat(agent.clusterId()).contains(id);
    }
    Secret secret =
        kube.client().secrets().inNamespace("gitopshq-system").withName("identity-e2e-prod").get();
    assertThat(secret).isNotNull();
    String identity =
        new String(
            Base64.getDecoder().decode(secret.getData().get("agent.json")), StandardCharsets.UTF_8);
    assertThat(identity).contains(id).containsPattern("ghqa_[0-9a-f]{64}");

    // The registration token is spent: a second install with it is refused.
    try (Agent stale =
        Agent.start(AgentConfig.fromEnv(env("e2e-other", registrationToken)), kube::client)) {
      assertThat(stale.exitCode().get(30, java.util.concurrent.TimeUnit.SECONDS))
          .isEqualTo(Agent.EXIT_CONFIGURATION);
    }

    // Restart: the persisted identity is used; Register is never called again.
    try (Agent agent = Agent.start(AgentConfig.fromEnv(env("e2e-prod", null)), kube::client)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
      assertThat(agent.registerCalls()).isZero();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> "Connected".equals(cluster(id).get("status").asText()));
      JsonNode view = cluster(id);
      assertThat(view.get("agentVersion").asText()).isNotBlank();
      assertThat(view.get("capabilities").toString()).contains("kubernetes.scale");

      // Heartbeats move lastSeen forward.
      Instant seen = Instant.parse(view.get("lastSeen").asText());
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  Instant.parse(cluster(id).get("lastSeen").asText())
                      .isAfter(seen.plusMillis(900)));
      assertThat(agent.heartbeatsSent()).isPositive();

      // The hub dies: the agent loses its stream. The hub comes back on the same ports: the
      // agent reconnects by itself with the same identity.
      hub.stop();
      await().atMost(Duration.ofSeconds(15)).until(() -> !agent.isConnected());
      hub.start();
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
      assertThat(agent.registerCalls()).isZero();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> "Connected".equals(cluster(id).get("status").asText()));
    }

    // The agent stopped: the cluster shows Disconnected.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> "Disconnected".equals(cluster(id).get("status").asText()));
  }

  @Test
  void anAgentWhoseIdentityWasReplacedStopsWithExitCode3() throws Exception {
    JsonNode created =
        hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", "e2e-replaced")).body();
    String id = created.get("cluster").get("id").asText();
    try (Agent agent =
        Agent.start(
            AgentConfig.fromEnv(env("e2e-replaced", created.get("registrationToken").asText())),
            kube::client)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();

      // A reinstall with a join token replaces the identity; the old agent is told and gives up.
      String join =
          hub.post("/api/v2/clusters/" + id + "/join-token", OWNER_TOKEN, null)
              .body()
              .get("registrationToken")
              .asText();
      Map<String, String> reinstall = env("e2e-replaced", join);
      reinstall.put(AgentConfig.IDENTITY_SECRET_NAME, "identity-e2e-replaced-2");
      try (Agent second = Agent.start(AgentConfig.fromEnv(reinstall), kube::client)) {
        assertThat(second.awaitConnected(Duration.ofSeconds(30))).isTrue();
        assertThat(agent.exitCode().get(30, java.util.concurrent.TimeUnit.SECONDS))
            .isEqualTo(Agent.EXIT_IDENTITY_REJECTED);
      }
    }
  }
}
