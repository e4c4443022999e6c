package dev.gitopshq.hub.process;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.hub.HubTestSupport;
import java.time.Duration;
import java.time.Instant;
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
 * F3 (the short partition): the network between the agent and the hub process stops forwarding both
 * ways while a command is handed over, with the connection left open, as a partition leaves it.
 * Heartbeats every second; a command must start within 5 s of its hand-over (agent wait 3 s plus
 * execution 2 s). A partition of two heartbeat intervals only delays the command; one past its
 * deadline means the agent refuses it when it finally arrives. Either way the hub sends it once,
 * and the agent's link carries on afterwards. (A hub process cannot skip time: the one-hour
 * partition in Temporal's skipped time is {@link LongPartitionIT}.)
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(HubProcess.LogsOnFailure.class)
@Tag("e2e")
class PartitionIT {
  static final Duration DEADLINE = Duration.ofSeconds(5);
  static ProcessStack stack;
  static HubProcess hub;
  static TcpProxy network;
  static Agent agent;
  static String clusterId;

  int writesBefore;
  int executedBefore;
  int replicasBefore;

  @BeforeAll
  static void start() throws Exception {
    stack = ProcessStack.start();
    hub =
        stack
            .add(
                new HubProcess(
                    "hub",
                    stack.backends,
                    Map.of(
                        "GITOPSHQ_HEARTBEAT_INTERVAL_SECONDS", "1",
                        "GITOPSHQ_COMMAND_AGENT_WAIT", "3s",
                        "GITOPSHQ_COMMAND_EXECUTION_TIMEOUT", "2s")))
            .start();
    network = stack.add(new TcpProxy(hub.grpcPort()));
    Fixtures.AutoScaled cluster =
        Fixtures.autoScaledCluster(stack, hub, network.address(), "partitioned");
    clusterId = cluster.id();
    agent = cluster.agent();
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
    replicasBefore = stack.replicas();
  }

  /** Requests a scale while the network is partitioned and waits until the hub handed it over. */
  String handedOverIntoThePartition() {
    network.partition();
    String id = Fixtures.scale(hub, OWNER_TOKEN, clusterId, replicasBefore + 1);
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () ->
                HubTestSupport.count(
                        "select count(*) from commands where id = ?::uuid and dispatched_at is not null",
                        id)
                    == 1);
    return id;
  }

  static Instant handedOverAt(String id) {
    for (JsonNode e : Fixtures.command(hub, id).get("timeline")) {
      if ("executing".equals(e.get("status").asText())) {
        return Instant.parse(e.get("at").asText());
      }
    }
    throw new AssertionError("command " + id + " was not handed over");
  }

  void assertSentOnceAndLinkAlive(String id) {
    assertThat(hub.logLines("command " + id + " (scale demo/web) sent to cluster"))
        .as("times the hub sent the command")
        .isEqualTo(1);
    long heartbeats = agent.heartbeatsSent();
    await().atMost(Duration.ofSeconds(5)).until(() -> agent.heartbeatsSent() > heartbeats + 1);
    assertThat(agent.isConnected()).isTrue();
    assertThat(hub.get("/api/v2/clusters/" + clusterId, OWNER_TOKEN).body().get("status").asText())
        .isEqualTo("Connected");
  }

  @Test
  @Order(1)
  void aPartitionOfTwoHeartbeatIntervalsOnlyDelaysTheCommand() {
    String id = handedOverIntoThePartition();
    // Two heartbeat intervals without a byte either way: the delay is the point.
    HubProcess.pause(2000);
    assertThat(stack.writes.sent()).isEqualTo(writesBefore);
    network.forward();

    JsonNode done = Fixtures.awaitStatus(hub, id, "completed", Duration.ofSeconds(15));
    Fixtures.assertWholeTimeline(done, "completed");
    assertThat(stack.writes.sent()).isEqualTo(writesBefore + 1);
    assertThat(agent.commandsExecuted()).isEqualTo(executedBefore + 1);
    assertThat(stack.replicas()).isEqualTo(replicasBefore + 1);
    assertSentOnceAndLinkAlive(id);
  }

  @Test
  @Order(2)
  void aCommandThatReachesTheAgentPastItsDeadlineIsNeverRun() {
    String id = handedOverIntoThePartition();
    Instant deadline = handedOverAt(id).plus(DEADLINE);
    // The partition outlasts the deadline by a second.
    await()
        .atMost(DEADLINE.plusSeconds(5))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> Instant.now().isAfter(deadline.plusSeconds(1)));
    network.forward();

    JsonNode done = Fixtures.awaitStatus(hub, id, "failed", Duration.ofSeconds(15));
    Fixtures.assertWholeTimeline(done, "failed");
    JsonNode last = done.get("timeline").get(done.get("timeline").size() - 1);
    assertThat(last.get("detail").asText()).contains("deadline");
    // Nothing reached the cluster, then or later.
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(3))
        .until(() -> stack.writes.sent() == writesBefore);
    assertThat(agent.commandsExecuted()).isEqualTo(executedBefore);
    assertThat(stack.replicas()).isEqualTo(replicasBefore);
    assertSentOnceAndLinkAlive(id);
  }
}
