package dev.gitopshq.hub.process;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * F2: PostgreSQL goes away in the middle of a command, as in a restart or a failover. The hub
 * process reaches PostgreSQL through a TCP proxy that drops every connection and refuses new ones
 * for the outage (the shared PostgreSQL of the machine keeps running for everyone else). During the
 * outage clients get 503 with Retry-After and the usual error body, never a 500; a command
 * requested then leaves no row; the command that was running completes afterwards, once.
 */
@ExtendWith(HubProcess.LogsOnFailure.class)
class DatabaseOutageIT {
  static ProcessStack stack;
  static TcpProxy postgres;
  static HubProcess hub;
  static Agent agent;
  static String clusterId;

  @BeforeAll
  static void start() throws Exception {
    stack = ProcessStack.start();
    URI db = URI.create(HubTestSupport.DB_URL.substring("jdbc:".length()));
    postgres = stack.add(new TcpProxy(db.getPort()));
    hub =
        stack
            .add(
                new HubProcess(
                    "hub",
                    stack.backends,
                    Map.of(
                        "GITOPSHQ_DB_URL",
                        "jdbc:postgresql://" + postgres.address() + db.getPath(),
                        "GITOPSHQ_DB_CONNECTION_TIMEOUT_MS",
                        "2000")))
            .start();
    Fixtures.awaitPolicyPublished(hub);
    String[] cluster = Fixtures.createCluster(hub, "db-outage");
    clusterId = cluster[0];
    agent =
        stack.add(Fixtures.startAgent(hub.grpcAddress(), "db-outage", cluster[1], stack.agentKube));
    Fixtures.bindPolicy(hub, clusterId, Map.of("autoApprove", List.of("scale")));
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  static void assertUnavailable(Response r) {
    assertThat(r.status()).as(r.raw()).isEqualTo(503);
    assertThat(r.header("Retry-After")).hasValue("5");
    assertThat(r.body().get("error").asText()).isEqualTo("unavailable");
    assertThat(r.body().get("status").asInt()).isEqualTo(503);
  }

  @Test
  void aDatabaseOutageMidCommandAnswers503AndTheCommandCompletesAfterwards() {
    String unusedToken = Fixtures.member(hub, "member")[0];
    int before = stack.replicas();
    stack.writes.close();
    String id = Fixtures.scale(hub, OWNER_TOKEN, clusterId, before + 1);
    // Handed over: the agent is writing to the Deployment.
    await().atMost(Duration.ofSeconds(20)).until(() -> stack.writes.waiting() == 1);
    long commandsBefore = HubTestSupport.count("select count(*) from commands");

    postgres.refuse(true);
    postgres.dropAll();
    // A read with a cached token, a token never seen (looked up while authenticating) and a write.
    assertUnavailable(hub.get("/api/v2/commands/" + id, OWNER_TOKEN));
    assertUnavailable(hub.get("/api/v2/clusters", unusedToken));
    Response refused =
        hub.post(
            "/api/v2/clusters/" + clusterId + "/commands",
            OWNER_TOKEN,
            Fixtures.scaleBody(before + 5));
    assertUnavailable(refused);
    // The agent's result reaches the hub while the database is still away.
    stack.writes.open();
    await().atMost(Duration.ofSeconds(10)).until(() -> agent.commandsExecuted() == 1);
    HubProcess.pause(2000);
    postgres.refuse(false);

    JsonNode done = Fixtures.awaitStatus(hub, id, "completed", Duration.ofSeconds(30));
    Fixtures.assertWholeTimeline(done, "completed");
    assertThat(done.get("output").asText())
        .isEqualTo("deployment.apps/web scaled from " + before + " to " + (before + 1));
    assertThat(stack.writes.sent()).isEqualTo(1);
    assertThat(agent.commandsExecuted()).isEqualTo(1);
    // The command refused during the outage left nothing behind.
    assertThat(HubTestSupport.count("select count(*) from commands")).isEqualTo(commandsBefore);
    assertThat(hub.get("/api/v2/clusters", unusedToken).status()).isEqualTo(200);
  }
}
