package dev.gitopshq.hub.process;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two hub processes, A and B, on one PostgreSQL, one Temporal dev server, one OPA and one data
 * directory, as two pods of a Deployment. The agent's stream is held by A; everything is done
 * through B's REST API. Both replicas sweep for parked commands only every ten minutes, so what
 * takes effect on A within the test's deadlines does so because PostgreSQL notified A.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(HubProcess.LogsOnFailure.class)
@Tag("e2e")
class TwoHubProcessesIT {
  static final Map<String, String> NO_SWEEP = Map.of("GITOPSHQ_AGENT_SWEEP_MILLIS", "600000");

  static ProcessStack stack;
  static HubProcess a;
  static HubProcess b;
  static Agent agent;
  static String clusterId;

  @BeforeAll
  static void start() throws Exception {
    stack = ProcessStack.start();
    // One after the other: the first applies the migrations and bootstraps the owner.
    a = stack.add(new HubProcess("hub-a", stack.backends, NO_SWEEP)).start();
    b = stack.add(new HubProcess("hub-b", stack.backends, NO_SWEEP)).start();
    Fixtures.awaitPolicyPublished(b);

    String[] cluster = Fixtures.createCluster(b, "two-processes");
    clusterId = cluster[0];
    agent =
        stack.add(
            Fixtures.startAgent(a.grpcAddress(), "two-processes", cluster[1], stack.agentKube));
    Fixtures.bindPolicy(b, clusterId, Map.of("autoApprove", List.of("scale", "sync")));
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  static int replicas() {
    return stack.replicas();
  }

  @Test
  @Order(1)
  void aCommandRequestedOnBRunsThroughTheAgentOnAAtOnce() {
    // A first command warms both JVMs' paths (class loading, JIT); it must complete too.
    String warmUp = Fixtures.scale(b, OWNER_TOKEN, clusterId, replicas() + 1);
    Fixtures.awaitStatus(b, warmUp, "completed", Duration.ofSeconds(30));

    int before = replicas();
    int writesBefore = stack.writes.sent();
    int executedBefore = agent.commandsExecuted();
    long started = System.nanoTime();
    String id = Fixtures.scale(b, OWNER_TOKEN, clusterId, before + 2);
    // The sweep would take ten minutes; a notification takes a round trip to PostgreSQL.
    // The whole path has slack for a loaded machine; the hop below is the sharp measure.
    JsonNode done = Fixtures.awaitStatus(b, id, "completed", Duration.ofSeconds(5));
    long millis = (System.nanoTime() - started) / 1_000_000;
    Instant handedOver = Instant.parse(event(done, "executing").get("at").asText());
    long hop = Duration.between(handedOver, stack.writes.lastSentAt()).toMillis();
    System.out.printf(
        "command requested on B completed in %d ms; from its hand-over to the agent's write on"
            + " the cluster (held by A): %d ms%n",
        millis, hop);
    assertThat(hop).as("hand-over to the agent's write, ms").isLessThan(1000);

    assertThat(stack.writes.sent()).isEqualTo(writesBefore + 1);
    assertThat(agent.commandsExecuted()).isEqualTo(executedBefore + 1);
    assertThat(replicas()).isEqualTo(before + 2);
    Fixtures.assertWholeTimeline(Fixtures.command(a, id), "completed");
  }

  static JsonNode event(JsonNode command, String status) {
    for (JsonNode e : command.get("timeline")) {
      if (status.equals(e.get("status").asText())) {
        return e;
      }
    }
    throw new AssertionError("no " + status + " event in " + command.get("timeline"));
  }

  @Test
  @Order(2)
  void aTokenRevokedOnBIsRefusedOnAAtOnce() {
    String[] member = Fixtures.member(b, "member");
    String token = member[0];
    // A authenticates it and keeps it in its cache.
    assertThat(a.get("/api/v2/clusters", token).status()).isEqualTo(200);
    assertThat(a.get("/api/v2/clusters", token).status()).isEqualTo(200);

    Response revoked =
        b.send(
            "DELETE", "/api/v2/members/" + member[1] + "/tokens/" + member[2], OWNER_TOKEN, null);
    assertThat(revoked.status()).as(revoked.raw()).isEqualTo(200);
    // Well inside the cache's five minutes: A dropped it when PostgreSQL told it.
    await()
        .atMost(Duration.ofSeconds(1))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> a.get("/api/v2/clusters", token).status() == 401);
    assertThat(a.get("/api/v2/clusters", OWNER_TOKEN).status()).isEqualTo(200);
  }

  @Test
  @Order(3)
  void aTokenRotationStartedOnBCompletesForTheAgentOnA() {
    Response started = b.post("/api/v2/clusters/" + clusterId + "/rotate-token", OWNER_TOKEN, null);
    assertThat(started.status()).as(started.raw()).isIn(200, 201, 202);
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> Fixtures.audited(a, "cluster.token_rotation.activated", clusterId) == 1);
    assertThat(agent.isConnected()).isTrue();
  }

  /** Last: it takes the cluster away. */
  @Test
  @Order(4)
  void aClusterDeletedOnBLosesItsStreamOnAAtOnce() {
    assertThat(agent.isConnected()).isTrue();
    assertThat(b.send("DELETE", "/api/v2/clusters/" + clusterId, OWNER_TOKEN, null).status())
        .isEqualTo(204);
    await()
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> !agent.isConnected());
    // Its token died with the cluster: the agent, retrying every second, stays out.
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(4))
        .until(() -> !agent.isConnected());
  }
}
