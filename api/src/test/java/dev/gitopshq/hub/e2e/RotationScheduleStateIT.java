package dev.gitopshq.hub.e2e;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.temporal.RotationSchedules;
import dev.gitopshq.testkube.TestKube;
import dev.gitopshq.workflows.rotation.ScheduledRotation;
import io.grpc.Status;
import io.temporal.client.schedules.Schedule;
import io.temporal.client.schedules.ScheduleClient;
import io.temporal.client.schedules.ScheduleClientOptions;
import io.temporal.client.schedules.ScheduleHandle;
import io.temporal.client.schedules.ScheduleListDescription;
import io.temporal.client.schedules.ScheduleOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Whether a cluster has its token rotation schedule is kept in PostgreSQL: an agent's Hello reaches
 * Temporal only when its {@code token.rotate} capability differs from what was recorded, also on a
 * restarted hub (or another replica), and a failed call is tried again at the next Hello.
 */
class RotationScheduleStateIT {
  static HubTestSupport hub;
  static TestKube kube;
  static WorkflowServiceStubs stubs;

  /** The test's own view of Temporal's schedules (not counted). */
  static ScheduleClient direct;

  /** The hub's schedule client: counts its calls, and refuses them while {@code failing}. */
  static CountingSchedules counted;

  @BeforeAll
  static void start() {
    kube = TestKube.start();
    hub = new HubTestSupport(true);
    stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(hub.temporalAddress()).build());
    direct =
        ScheduleClient.newInstance(
            stubs, ScheduleClientOptions.newBuilder().setNamespace("default").build());
    counted = new CountingSchedules(direct);
    hub.singleton("scheduleClient", counted).start();
  }

  @AfterAll
  static void stop() {
    hub.close();
    stubs.shutdown();
    kube.close();
  }

  @Test
  void aRestartedHubMakesNoScheduleCallForAnAgentWhoseScheduleIsRecorded() throws Exception {
    Cluster c = cluster("recorded");
    hello(c, true);
    assertThat(exists(c.id)).isTrue();
    assertThat(recorded(c.id)).isTrue();

    // Nothing of this hub's memory survives: the agent reconnects to a fresh one.
    hub.stop();
    hub.start();
    counted.calls.set(0);
    hello(c, true);
    assertThat(counted.calls.get()).isZero();
    assertThat(exists(c.id)).isTrue();
    assertThat(recorded(c.id)).isTrue();
  }

  @Test
  void aCapabilityChangeRemovesAndMakesTheScheduleAgain() throws Exception {
    Cluster c = cluster("changing");
    hello(c, true);
    assertThat(exists(c.id)).isTrue();

    hello(c, false);
    assertThat(exists(c.id)).isFalse();
    assertThat(recorded(c.id)).isFalse();

    int before = counted.calls.get();
    hello(c, false);
    assertThat(counted.calls.get()).isEqualTo(before);

    hello(c, true);
    assertThat(exists(c.id)).isTrue();
    assertThat(recorded(c.id)).isTrue();
  }

  @Test
  void aFailedScheduleCallIsTriedAgainAtTheNextHello() throws Exception {
    Cluster c = cluster("failing");
    counted.failing = true;
    try {
      int before = counted.calls.get();
      hello(c, true);
      assertThat(counted.calls.get()).isGreaterThan(before);
      assertThat(exists(c.id)).isFalse();
      assertThat(recorded(c.id)).isFalse();
    } finally {
      counted.failing = false;
    }
    hello(c, true);
    assertThat(exists(c.id)).isTrue();
    assertThat(recorded(c.id)).isTrue();
  }

  /** A cluster from before the state was recorded (null) is reconciled once, then recorded. */
  @Test
  void aClusterWhoseScheduleIsUnknownIsReconciledOnce() throws Exception {
    Cluster c = cluster("unknown");
    hello(c, true);
    assertThat(exists(c.id)).isTrue();
    update("update clusters set rotation_scheduled = null where id = ?", c.id);

    int before = counted.calls.get();
    hello(c, false);
    assertThat(counted.calls.get()).isEqualTo(before + 1);
    assertThat(exists(c.id)).isFalse();
    assertThat(recorded(c.id)).isFalse();

    hello(c, false);
    assertThat(counted.calls.get()).isEqualTo(before + 1);
  }

  record Cluster(UUID id, String name, Path identity, String registrationToken) {}

  static Cluster cluster(String name) throws Exception {
    JsonNode created = hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name)).body();
    return new Cluster(
        UUID.fromString(created.get("cluster").get("id").asText()),
        name,
        Files.createTempDirectory("agent").resolve("identity.json"),
        created.get("registrationToken").asText());
  }

  /**
   * Connects the cluster's agent with or without {@code token.rotate}, waits for the Welcome and
   * for the Temporal calls its Hello asked for, and disconnects it.
   */
  static void hello(Cluster c, boolean tokenRotate) throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(AgentConfig.AGENT_TOKEN_PATH, c.identity.toString());
    env.put(AgentConfig.CLUSTER_NAME, c.name);
    env.put(AgentConfig.CAPABILITIES, tokenRotate ? "observe,token.rotate" : "observe");
    env.put(AgentConfig.RECONNECT_MAX_SECONDS, "1");
    env.put(AgentConfig.REGISTRATION_TOKEN, c.registrationToken);
    try (Agent agent = Agent.start(AgentConfig.fromEnv(env), kube::client)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
      hub.bean(RotationSchedules.class).awaitIdle(Duration.ofSeconds(30));
    }
  }

  static boolean exists(UUID clusterId) {
    try {
      direct.getHandle(ScheduledRotation.scheduleId(clusterId.toString())).describe();
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  static Boolean recorded(UUID clusterId) throws Exception {
    try (Connection db = HubTestSupport.db();
        PreparedStatement q =
            db.prepareStatement("select rotation_scheduled from clusters where id = ?")) {
      q.setObject(1, clusterId);
      try (ResultSet rs = q.executeQuery()) {
        assertThat(rs.next()).isTrue();
        return (Boolean) rs.getObject(1);
      }
    }
  }

  static void update(String sql, UUID clusterId) throws Exception {
    try (Connection db = HubTestSupport.db();
        PreparedStatement u = db.prepareStatement(sql)) {
      u.setObject(1, clusterId);
      assertThat(u.executeUpdate()).isEqualTo(1);
    }
  }

  /** Delegates to Temporal, counting every schedule call the hub makes. */
  static final class CountingSchedules implements ScheduleClient {
    final ScheduleClient delegate;
    final AtomicInteger calls = new AtomicInteger();
    volatile boolean failing;

    CountingSchedules(ScheduleClient delegate) {
      this.delegate = delegate;
    }

    private void call() {
      calls.incrementAndGet();
      if (failing) {
        throw Status.UNAVAILABLE.withDescription("Temporal is down (test)").asRuntimeException();
      }
    }

    @Override
    public ScheduleHandle createSchedule(
        String scheduleId, Schedule schedule, ScheduleOptions options) {
      call();
      return delegate.createSchedule(scheduleId, schedule, options);
    }

    /** Every use of a handle (describe, delete) is a call. */
    @Override
    public ScheduleHandle getHandle(String scheduleId) {
      call();
      return delegate.getHandle(scheduleId);
    }

    @Override
    public Stream<ScheduleListDescription> listSchedules() {
      call();
      return delegate.listSchedules();
    }

    @Override
    public Stream<ScheduleListDescription> listSchedules(Integer pageSize) {
      call();
      return delegate.listSchedules(pageSize);
    }

    @Override
    public Stream<ScheduleListDescription> listSchedules(String query, Integer pageSize) {
      call();
      return delegate.listSchedules(query, pageSize);
    }
  }
}
