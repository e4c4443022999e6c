package dev.gitopshq.hub.process;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.testkube.TestKube;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * F3, the long partition: the agent is cut off from the hub for one hour of Temporal's time. A hub
 * process cannot skip time, so this hub runs in the test JVM on the Temporal test server with time
 * skipping, and its clock follows the test server's: the command workflow, the local activity that
 * parks the command for the agent, the dispatcher that sends parked commands on reconnect and the
 * deadline checks all see the same skipped hour. The command times (the agent wait and the
 * execution timeout) are the defaults, 15 and 5 minutes.
 *
 * <p>An auto-approved command is requested while the agent is away, the hour passes, and the agent
 * comes back: the command failed at its deadline, the agent never receives it (no late execution,
 * no re-dispatch), and the agent's link and heartbeats carry on at the hub's current time.
 */
class LongPartitionIT {
  static final Duration COMMAND_DEADLINE = Duration.ofMinutes(15 + 5);
  static final Duration PARTITION = Duration.ofHours(1);

  /** The workflow waits for the agent's report until the command's deadline plus 30 s. */
  static final Duration REPORT_MARGIN = Duration.ofSeconds(30);

  static TestWorkflowEnvironment temporal;
  static OpaTestServer opa;
  static HubTestSupport hub;
  static TestKube kube;
  static DeploymentWrites writes;
  static KubernetesClient agentKube;
  static TcpProxy network;
  static Agent agent;
  static String clusterId;
  static ListAppender<ILoggingEvent> dispatcherLog;
  static HttpServer webhook;
  static final List<JsonNode> notifications = new CopyOnWriteArrayList<>();

  /**
   * The hub's clock: the Temporal test server's, which {@link TestWorkflowEnvironment#sleep} moves.
   */
  static final class TemporalClock extends Clock {
    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException("the hub's clock is UTC");
    }

    @Override
    public Instant instant() {
      // Asked from gRPC handlers too, some of them in a cancelled call's context: the question
      // to the test server must not inherit that cancellation.
      try {
        return Instant.ofEpochMilli(io.grpc.Context.ROOT.call(() -> temporal.currentTimeMillis()));
      } catch (Exception e) {
        throw new IllegalStateException("cannot read the Temporal test server's time", e);
      }
    }
  }

  @BeforeAll
  static void start() throws Exception {
    temporal =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder().setUseTimeskipping(true).build());
    opa = OpaTestServer.startNew();
    hub =
        new HubTestSupport(temporal)
            .singleton("temporalClock", new TemporalClock())
            .property("opa.url", opa.url())
            .property("opa.token", opa.token())
            .property("opa.republish-interval", "1s")
            .property("gitopshq.agent.heartbeat-interval-seconds", 1)
            .start();
    Logger logger = (Logger) LoggerFactory.getLogger("dev.gitopshq.hub.gateway.CommandJobs");
    dispatcherLog = new ListAppender<>();
    dispatcherLog.start();
    logger.addAppender(dispatcherLog);

    // The operator's webhook receives what the hub tells people about the cluster and the command.
    webhook = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    webhook.createContext(
        "/",
        exchange -> {
          try (exchange) {
            notifications.add(new ObjectMapper().readTree(exchange.getRequestBody()));
            exchange.sendResponseHeaders(204, -1);
          }
        });
    webhook.start();
    Response subscribed =
        hub.send(
            "PUT",
            "/api/v2/notifications",
            OWNER_TOKEN,
            Map.of(
                "webhookUrl",
                "http://127.0.0.1:" + webhook.getAddress().getPort() + "/hook",
                "secret",
                "long-partition-secret-0123456789",
                "events",
                List.of("agent.disconnected", "command.failed")));
    assertThat(subscribed.status()).as(subscribed.raw()).isEqualTo(200);

    kube = TestKube.start().seedDemo();
    writes = new DeploymentWrites();
    agentKube = writes.client(kube);
    network = new TcpProxy(hub.grpcPort());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                hub.post(
                            "/api/v2/policies/approval/evaluate",
                            OWNER_TOKEN,
                            Map.of("input", Map.of("command", Map.of("type", "sync"))))
                        .status()
                    == 200);
    Response created =
        hub.post(
            "/api/v2/clusters", OWNER_TOKEN, Map.of("name", "far-away", "environment", "staging"));
    assertThat(created.status()).as(created.raw()).isEqualTo(201);
    clusterId = created.body().get("cluster").get("id").asText();

    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, network.address());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(
        AgentConfig.AGENT_TOKEN_PATH,
        Files.createTempDirectory("agent").resolve("identity.json").toString());
    env.put(AgentConfig.REGISTRATION_TOKEN, created.body().get("registrationToken").asText());
    env.put(AgentConfig.CLUSTER_NAME, "far-away");
    env.put(AgentConfig.CAPABILITIES, "observe,kubernetes.scale");
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    env.put(AgentConfig.RECONNECT_MAX_SECONDS, "1");
    agent = Agent.start(AgentConfig.fromEnv(env), () -> agentKube);
    assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
    Response bound =
        hub.send(
            "PUT",
            "/api/v2/clusters/" + clusterId + "/approval-policy",
            OWNER_TOKEN,
            Map.of("autoApprove", List.of("scale")));
    assertThat(bound.status()).as(bound.raw()).isEqualTo(200);
  }

  @AfterAll
  static void stop() {
    if (hub != null) {
      // The organization's webhook lives in the shared test database: later hubs in this JVM
      // would send their events to this test's receiver, which is gone.
      hub.send("DELETE", "/api/v2/notifications", OWNER_TOKEN, null);
    }
    for (AutoCloseable c : new AutoCloseable[] {agent, network, hub, agentKube, kube, opa}) {
      if (c != null) {
        try {
          c.close();
        } catch (Exception e) {
          // Closing the rest matters more.
        }
      }
    }
    if (webhook != null) {
      webhook.stop(0);
    }
    if (temporal != null) {
      temporal.close();
    }
  }

  static int replicas() {
    return kube.client()
        .apps()
        .deployments()
        .inNamespace(TestKube.DEMO_NAMESPACE)
        .withName(TestKube.DEMO_DEPLOYMENT)
        .get()
        .getSpec()
        .getReplicas();
  }

  static JsonNode command(String id) {
    return hub.get("/api/v2/commands/" + id, OWNER_TOKEN).body();
  }

  static JsonNode cluster() {
    return hub.get("/api/v2/clusters/" + clusterId, OWNER_TOKEN).body();
  }

  /** The notifications of {@code event} about {@code subject} (a cluster or a command id). */
  static long notified(String event, String subject) {
    return notifications.stream()
        .filter(n -> event.equals(n.path("event").asText()))
        .filter(n -> n.path("data").toString().contains(subject))
        .count();
  }

  static long sentLines(String id) {
    return dispatcherLog.list.stream()
        .filter(e -> e.getFormattedMessage().startsWith("command " + id + " "))
        .filter(e -> e.getFormattedMessage().contains(" sent to cluster "))
        .count();
  }

  @Test
  void aCommandParkedForAnHourLongPartitionExpiresAtItsDeadlineAndIsNeverSent() throws Exception {
    int replicasBefore = replicas();
    int writesBefore = writes.sent();
    int executedBefore = agent.commandsExecuted();

    // The partition: the agent's stream is gone and every reconnect is refused.
    network.refuse(true);
    network.dropAll();
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> !"Connected".equals(cluster().get("status").asText()));

    Response requested =
        hub.post(
            "/api/v2/clusters/" + clusterId + "/commands",
            OWNER_TOKEN,
            Fixtures.scaleBody(replicasBefore + 1));
    assertThat(requested.status()).as(requested.raw()).isEqualTo(202);
    String id = requested.body().get("id").asText();
    // Auto-approved and parked for the absent agent: handed over, sent on no stream.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                HubTestSupport.count(
                        "select count(*) from agent_jobs where ref = ? and state = 'queued'", id)
                    == 1);
    assertThat(command(id).get("status").asText()).isEqualTo("executing");
    Instant handedOver = null;
    for (JsonNode e : command(id).get("timeline")) {
      if ("executing".equals(e.get("status").asText())) {
        handedOver = Instant.parse(e.get("at").asText());
      }
    }
    assertThat(handedOver).isNotNull();
    Instant deadline = handedOver.plus(COMMAND_DEADLINE);

    Instant skippedFrom = Instant.ofEpochMilli(temporal.currentTimeMillis());
    // Nothing holds the test server's clock: the command is parked by a local activity, and the
    // workflow waits for the agent's report on a timer.
    temporal.sleep(PARTITION);
    Instant partitionEnds = Instant.ofEpochMilli(temporal.currentTimeMillis());
    assertThat(partitionEnds).isAfterOrEqualTo(skippedFrom.plus(PARTITION));

    // The workflow gave up at the deadline (plus its 30 s margin for the report), within the hour.
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> "failed".equals(command(id).get("status").asText()));
    JsonNode failed = command(id);
    List<String> statuses = Fixtures.assertWholeTimeline(failed, "failed");
    JsonNode last = failed.get("timeline").get(failed.get("timeline").size() - 1);
    assertThat(last.get("detail").asText())
        .isEqualTo(
            "the agent did not report within "
                + COMMAND_DEADLINE.toSeconds()
                + " s (disconnected, or the command is still running)");
    Instant failedAt = Instant.parse(last.get("at").asText());
    assertThat(failedAt)
        .isAfterOrEqualTo(deadline.plus(REPORT_MARGIN))
        .isBefore(skippedFrom.plus(PARTITION));

    // People were told, once each: the agent stayed away past the disconnect timeout, and the
    // command failed.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(notified("agent.disconnected", clusterId))
                  .as("agent.disconnected notifications in %s", notifications)
                  .isEqualTo(1);
              assertThat(notified("command.failed", id))
                  .as("command.failed notifications in %s", notifications)
                  .isEqualTo(1);
            });

    // The partition heals: the agent comes back, the hub does not send the dead command.
    network.refuse(false);
    assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> "Connected".equals(cluster().get("status").asText()));
    // Several of the hub's 2-second sweeps for parked commands, and the reconnect's own hand-over.
    await()
        .during(Duration.ofSeconds(5))
        .atMost(Duration.ofSeconds(6))
        .until(() -> writes.sent() == writesBefore && sentLines(id) == 0);
    assertThat(agent.commandsExecuted()).isEqualTo(executedBefore);
    assertThat(replicas()).isEqualTo(replicasBefore);
    assertThat(
            HubTestSupport.count(
                "select count(*) from commands where id = ?::uuid and dispatched_at is null", id))
        .as("never put on a stream")
        .isEqualTo(1);
    JsonNode after = command(id);
    assertThat(after.get("status").asText()).isEqualTo("failed");
    assertThat(after.get("timeline").findValuesAsText("status")).isEqualTo(statuses);

    // The link converges: heartbeats flow and the hub records them at its current (skipped) time.
    long beats = agent.heartbeatsSent();
    await().atMost(Duration.ofSeconds(10)).until(() -> agent.heartbeatsSent() > beats + 2);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !Instant.parse(cluster().get("lastSeen").asText()).isBefore(partitionEnds));
    assertThat(cluster().get("status").asText()).isEqualTo("Connected");
  }
}
