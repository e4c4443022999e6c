package dev.gitopshq.hub.e2e;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.testkube.RealKube;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The agent on a real kube-apiserver (tools/dev/kube.sh: controllers and kwok's node), where the
 * mock cannot go: a Deployment the controllers turn into a ReplicaSet and Running Pods shows up in
 * the inventory with its real status; inspecting it finds the controllers' objects and events;
 * scaling and deleting in the cluster arrive as deltas.
 */
@Tag("e2e")
class RealKubeAgentIT {
  static RealKube kube;
  static KubernetesClient admin;
  static HubTestSupport hub;
  static final String NS = "rk-" + UUID.randomUUID().toString().substring(0, 6);

  @BeforeAll
  static void start() {
    kube = RealKube.shared();
    admin = kube.adminClient();
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .create();
    admin
        .apps()
        .deployments()
        .inNamespace(NS)
        .resource(
            new DeploymentBuilder()
                .withNewMetadata()
                .withName("web")
                .addToLabels("app", "web")
                .endMetadata()
                .withNewSpec()
                .withReplicas(2)
                .withNewSelector()
                .addToMatchLabels("app", "web")
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", "web")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("web")
                .withImage("registry.example/web:1")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build())
        .create();
    hub = HubTestSupport.shared();
  }

  @AfterAll
  static void stop() {
    if (admin != null) {
      admin.namespaces().withName(NS).delete();
      admin.close();
    }
  }

  static JsonNode get(String path) {
    Response r = hub.get(path, OWNER_TOKEN);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    return r.body();
  }

  static List<String> rows(String clusterId, String kind) {
    List<String> out = new ArrayList<>();
    get("/api/v2/clusters/" + clusterId + "/resources?namespace=" + NS + "&kind=" + kind)
        .get("items")
        .forEach(i -> out.add(i.get("name").asText() + " " + i.get("status").asText()));
    return out;
  }

  @Test
  void theInventoryAndInspectionFollowTheRealControllers() throws Exception {
    JsonNode created =
        hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", "real-kube")).body();
    String id = created.get("cluster").get("id").asText();
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(
        AgentConfig.AGENT_TOKEN_PATH, Files.createTempDirectory("rk").resolve("a.json").toString());
    env.put(AgentConfig.CLUSTER_NAME, "real-kube");
    env.put(AgentConfig.CAPABILITIES, "observe,diagnostics.read");
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    env.put(AgentConfig.REGISTRATION_TOKEN, created.get("registrationToken").asText());

    try (KubernetesClient agentClient = kube.adminClient();
        Agent agent = Agent.start(AgentConfig.fromEnv(env), () -> agentClient)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();

      // The controllers made a ReplicaSet and two Pods, and kwok runs them.
      await()
          .atMost(Duration.ofSeconds(90))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                assertThat(rows(id, "Deployment")).containsExactly("web 2/2 ready");
                assertThat(rows(id, "ReplicaSet")).singleElement().asString().endsWith("2/2 ready");
                assertThat(rows(id, "Pod")).hasSize(2).allMatch(p -> p.endsWith("Running 1/1"));
              });

      JsonNode web = get("/api/v2/clusters/" + id + "/resources/apps/v1/Deployment/" + NS + "/web");
      List<String> related = new ArrayList<>();
      web.get("related")
          .forEach(r -> related.add(r.get("relation").asText() + " " + r.get("kind").asText()));
      assertThat(related)
          .contains("owned ReplicaSet")
          .filteredOn(r -> r.equals("owned Pod"))
          .hasSize(2);
      assertThat(web.get("eventsIncluded").asBoolean()).isTrue();
      assertThat(web.get("events").toString()).contains("ScalingReplicaSet");
      assertThat(web.get("conditions").toString()).contains("Available");

      // Scaling in the cluster arrives as a delta.
      admin.apps().deployments().inNamespace(NS).withName("web").scale(3);
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                assertThat(rows(id, "Deployment")).containsExactly("web 3/3 ready");
                assertThat(rows(id, "Pod")).hasSize(3);
              });
    }
  }
}
