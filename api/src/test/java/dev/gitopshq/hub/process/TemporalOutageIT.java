package dev.gitopshq.hub.process;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gitopshq.agent.Agent;
import dev.gitopshq.hub.HubTestSupport;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Temporal goes away while an agent runs a command: the agent's report reaches the hub, but the hub
 * cannot hand it to the command's workflow. The hub process reaches Temporal through a TCP proxy
 * that drops every connection and refuses new ones for the outage. The report is recorded and kept;
 * once Temporal is back the hub hands it over, and the command completes with the agent's output,
 * executed once. (Before, the hub cleared the command's task token first and the report was lost:
 * the workflow waited out its deadline and the command failed although it had run.)
 */
@ExtendWith(HubProcess.LogsOnFailure.class)
@Tag("e2e")
class TemporalOutageIT {
  static ProcessStack stack;
  static TcpProxy temporal;
  static HubProcess hub;
  static Agent agent;
  static String clusterId;

  @BeforeAll
  static void start() throws Exception {
    stack = ProcessStack.start();
    String address = stack.backends.temporalAddress();
    temporal =
        stack.add(new TcpProxy(Integer.parseInt(address.substring(address.lastIndexOf(':') + 1))));
    hub =
        stack
            .add(
                new HubProcess(
                    "hub", stack.backends, Map.of("TEMPORAL_ADDRESS", temporal.address())))
            .start();
    Fixtures.AutoScaled cluster =
        Fixtures.autoScaledCluster(stack, hub, hub.grpcAddress(), "temporal-outage");
    clusterId = cluster.id();
    agent = cluster.agent();
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  static long reportsKept(String id) {
    return HubTestSupport.count(
        "select count(*) from agent_jobs where ref = ? and state = 'reported'", id);
  }

  @Test
  void aReportThatArrivesWhileTemporalIsAwayIsHandedOverOnceItIsBack() {
    int before = stack.replicas();
    stack.writes.close();
    String id = Fixtures.scale(hub, OWNER_TOKEN, clusterId, before + 1);
    // Handed over: the agent is writing to the Deployment.
    await().atMost(Duration.ofSeconds(20)).until(() -> stack.writes.waiting() == 1);

    temporal.refuse(true);
    temporal.dropAll();
    stack.writes.open();
    await().atMost(Duration.ofSeconds(10)).until(() -> agent.commandsExecuted() == 1);
    // The hub could not hand the report over: it is recorded, and kept for the workflow.
    await().atMost(Duration.ofSeconds(30)).until(() -> reportsKept(id) == 1);
    assertThat(Fixtures.command(hub, id).get("status").asText()).isEqualTo("executing");
    temporal.refuse(false);

    Fixtures.assertFirstScaleCompletedOnce(stack, hub, agent, id, before, Duration.ofSeconds(60));
    assertThat(stack.replicas()).isEqualTo(before + 1);
    assertThat(reportsKept(id)).isZero();
  }
}
