package dev.gitopshq.hub.e2e;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.testkube.TestKube;
import io.temporal.worker.WorkerFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Two hub replicas on one PostgreSQL and one Temporal server. The agent's stream is held by replica
 * b, whose Temporal workers do not poll, so every activity runs on replica a. Both sweep only once
 * an hour: what reaches the agent in time does so because PostgreSQL told replica b (channel
 * gitopshq_agents), not because a sweep found it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicaIT {
  static final String SLOW_SWEEP = "3600000";

  static OpaTestServer opa;
  static TestKube kube;
  static HubTestSupport a;
  static HubTestSupport b;
  static Agent agent;
  static String clusterId;

  @BeforeAll
  static void start() throws Exception {
    opa = OpaTestServer.startNew();
    kube = TestKube.start().seedDemo();
    a =
        new HubTestSupport()
            .property("opa.url", opa.url())
            .property("opa.token", opa.token())
            .property("gitopshq.replica-id", "replica-a")
            .property("gitopshq.agent.sweep-millis", SLOW_SWEEP)
            .start();
    b =
        new HubTestSupport(a)
            .property("opa.url", opa.url())
            .property("opa.token", opa.token())
            .property("gitopshq.replica-id", "replica-b")
            .property("gitopshq.agent.sweep-millis", SLOW_SWEEP)
            .start();
    // b runs no activity: its workers stop (outstanding polls end with them).
    WorkerFactory bWorkers = b.bean(WorkerFactory.class);
    bWorkers.shutdown();
    bWorkers.awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);

    Response created =
        a.post(
            "/api/v2/clusters",
            OWNER_TOKEN,
            Map.of("name", "replicated", "environment", "staging"));
    assertThat(created.status()).as(created.raw()).isEqualTo(201);
    clusterId = created.body().get("cluster").get("id").asText();
    Path identity = Files.createTempDirectory("agent").resolve("identity.json");
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, b.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(AgentConfig.AGENT_TOKEN_PATH, identity.toString());
    env.put(AgentConfig.REGISTRATION_TOKEN, created.body().get("registrationToken").asText());
    env.put(AgentConfig.CLUSTER_NAME, "replicated");
    env.put(AgentConfig.CAPABILITIES, "observe,argocd.read,argocd.write");
    env.put(AgentConfig.RECONNECT_MAX_SECONDS, "2");
    agent = Agent.start(AgentConfig.fromEnv(env), kube::client);
    assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
    assertThat(b.gateway().connectedAgents()).isEqualTo(1);
    assertThat(a.gateway().connectedAgents()).isZero();

    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                a.post(
                            "/api/v2/policies/approval/evaluate",
                            OWNER_TOKEN,
                            Map.of("input", Map.of("command", Map.of("type", "sync"))))
                        .status()
                    == 200);
    Response bound =
        a.send(
            "PUT",
            "/api/v2/clusters/" + clusterId + "/approval-policy",
            OWNER_TOKEN,
            Map.of("autoApprove", List.of("sync"), "requireApproval", List.of("scale")));
    assertThat(bound.status()).as(bound.raw()).isEqualTo(200);
  }

  @AfterAll
  static void stop() {
    agent.close();
    b.close();
    a.close();
    kube.close();
    opa.close();
  }

  @Test
  @Order(1)
  void aCommandParkedByOneReplicaReachesTheAgentHeldByTheOtherAtOnce() {
    for (int i = 0; i < 3; i++) {
      Response r =
          a.post(
              "/api/v2/clusters/" + clusterId + "/commands",
              OWNER_TOKEN,
              Map.of(
                  "type",
                  "sync",
                  "target",
                  Map.of("namespace", "argocd", "kind", "Application", "name", "demo-app")));
      assertThat(r.status()).as(r.raw()).isEqualTo(202);
      String id = r.body().get("id").asText();
      // Well inside the hour-long sweep: the notification, nothing else, moved it.
      await()
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  "completed"
                      .equals(
                          a.get("/api/v2/commands/" + id, OWNER_TOKEN)
                              .body()
                              .get("status")
                              .asText()));
    }
  }

  /** Last: it takes the cluster away. */
  @Test
  @Order(2)
  void aClusterDeletedThroughOneReplicaLosesItsStreamOnTheOtherAtOnce() throws Exception {
    assertThat(a.send("DELETE", "/api/v2/clusters/" + clusterId, OWNER_TOKEN, null).status())
        .isEqualTo(204);
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> b.gateway().connectedAgents() == 0);
    // The agent's token died with the cluster: it cannot come back.
    Thread.sleep(3_000);
    assertThat(b.gateway().connectedAgents()).isZero();
  }
}
