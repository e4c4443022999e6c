package dev.gitopshq.hub.process;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.hub.HubTestSupport;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * F1: {@code kill -9} of the hub process at three points of an approved scale command, then a
 * restart on the same ports, database and data directory. Each time the command ends {@code
 * completed}, the Deployment was written exactly once, the agent ran it once, and the timeline
 * reads from the request to one hand-over and one outcome. The agent reaches the hub through a TCP
 * proxy the test can cut or make hold the agent's bytes; the agent's Kubernetes client has a gate
 * that keeps its write to the Deployment waiting.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(HubProcess.LogsOnFailure.class)
@Tag("e2e")
class HubKillIT {
  static ProcessStack stack;
  static HubProcess hub;
  static TcpProxy proxy;
  static Agent agent;
  static String clusterId;
  static String approver;

  int writesBefore;
  int executedBefore;
  int replicasBefore;

  @BeforeAll
  static void start() throws Exception {
    stack = ProcessStack.start();
    hub = stack.add(new HubProcess("hub", stack.backends, Map.of())).start();
    proxy = stack.add(new TcpProxy(hub.grpcPort()));
    Fixtures.awaitPolicyPublished(hub);
    approver = Fixtures.member(hub, "admin")[0];
    String[] cluster = Fixtures.createCluster(hub, "kill-nine");
    clusterId = cluster[0];
    agent =
        stack.add(Fixtures.startAgent(proxy.address(), "kill-nine", cluster[1], stack.agentKube));
    Fixtures.bindPolicy(
        hub, clusterId, Map.of("requireApproval", List.of("scale"), "requiredApprovers", 1));
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @BeforeEach
  void remember() {
    writesBefore = stack.writes.sent();
    executedBefore = agent.commandsExecuted();
    replicasBefore = web().getSpec().getReplicas();
  }

  static Deployment web() {
    return stack.kube.client().apps().deployments().inNamespace("demo").withName("web").get();
  }

  /** Requests a scale by one more replica as the owner and approves it as an admin; its id. */
  String approvedScale() {
    String id = Fixtures.scale(hub, OWNER_TOKEN, clusterId, replicasBefore + 1);
    Fixtures.awaitStatus(hub, id, "pending_approval", Duration.ofSeconds(15));
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () ->
                hub.get("/api/v2/approvals", approver)
                    .body()
                    .get("items")
                    .findValuesAsText("id")
                    .contains(id));
    assertThat(
            hub.post("/api/v2/approvals/" + id + "/approve", approver, Map.of("comment", "go"))
                .status())
        .isEqualTo(202);
    return id;
  }

  /** The command completed, once: one write, one run, the new replica count, a whole timeline. */
  void assertCompletedOnce(String id) {
    JsonNode done = Fixtures.awaitStatus(hub, id, "completed", Duration.ofSeconds(30));
    assertThat(done.get("output").asText())
        .isEqualTo(
            "deployment.apps/web scaled from " + replicasBefore + " to " + (replicasBefore + 1));
    Fixtures.assertWholeTimeline(done, "completed");
    assertThat(web().getSpec().getReplicas()).isEqualTo(replicasBefore + 1);
    assertThat(web().getMetadata().getAnnotations()).containsEntry("gitopshq.dev/last-command", id);
    // Nothing arrives late either: the agent answers the hub's re-sent command from memory.
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(3))
        .until(() -> stack.writes.sent() == writesBefore + 1);
    assertThat(agent.commandsExecuted()).isEqualTo(executedBefore + 1);
    assertThat(
            HubTestSupport.count(
                "select count(*) from agent_jobs where ref = ?"
                    + " and state in ('queued', 'sent', 'reported')",
                id))
        .as("no command is left parked")
        .isZero();
  }

  @Test
  @Order(1)
  void killedAfterTheApprovalBeforeTheDispatch() {
    // The agent is cut off, so the approved command waits, parked, for its stream.
    proxy.refuse(true);
    proxy.dropAll();
    await().atMost(Duration.ofSeconds(5)).until(() -> !agent.isConnected());
    String id = approvedScale();
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () ->
                HubTestSupport.count(
                        "select count(*) from agent_jobs where ref = ? and state = 'queued'", id)
                    == 1);

    hub.killAndRestart();
    proxy.refuse(false);

    assertCompletedOnce(id);
  }

  @Test
  @Order(2)
  void killedAfterTheDispatchWhileTheAgentRunsIt() {
    stack.writes.close();
    String id = approvedScale();
    // The agent took it and is writing to the Deployment (the API server is slow).
    await().atMost(Duration.ofSeconds(15)).until(() -> stack.writes.waiting() == 1);

    hub.killAndRestart();
    // The restarted hub sends the parked command again on the agent's new stream; the agent is
    // still busy with the first copy.
    await().atMost(Duration.ofSeconds(15)).until(agent::isConnected);
    stack.writes.open();

    assertCompletedOnce(id);
  }

  @Test
  @Order(3)
  void killedBeforeTheAgentsResultReachesTheHub() {
    stack.writes.close();
    String id = approvedScale();
    await().atMost(Duration.ofSeconds(15)).until(() -> stack.writes.waiting() == 1);
    // The agent's result will leave the agent but stay in the network.
    proxy.hold();
    stack.writes.open();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> agent.commandsExecuted() == executedBefore + 1);
    assertThat(web().getSpec().getReplicas()).isEqualTo(replicasBefore + 1);
    assertThat(Fixtures.command(hub, id).get("status").asText()).isEqualTo("executing");

    hub.kill();
    proxy.dropAll();
    proxy.forward();
    hub.start();

    assertCompletedOnce(id);
  }
}
