package dev.gitopshq.hub.gateway;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.cluster.AgentHealthMapper;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.crypto.SecretBox;
import dev.gitopshq.activities.gateway.AgentJob;
import dev.gitopshq.activities.gateway.AgentJobMapper;
import dev.gitopshq.agent.v1.AdaptersWired;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.ReconcileRequested;
import dev.gitopshq.agent.v1.RequestReconcile;
import dev.gitopshq.agent.v1.WireAdapters;
import dev.gitopshq.hub.HubTestSupport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The one pipeline of agent jobs against the real PostgreSQL: two replicas' dispatchers share the
 * outbox, each holding its own streams, with Temporal replaced by a recorder that can refuse.
 */
class JobDispatcherIT {
  static HubTestSupport hub;
  static AgentJobMapper jobs;
  static UUID org;

  /** The value the test kind hands to Temporal. */
  record Echo(String ref, boolean answered, String detail) {}

  /** A kind as small as one can be: the ref goes out as WireAdapters and comes back answered. */
  static final class EchoKind implements JobKind<Echo> {
    @Override
    public String name() {
      return "test_echo";
    }

    @Override
    public AgentMessage.PayloadCase answer() {
      return AgentMessage.PayloadCase.ADAPTERS_WIRED;
    }

    @Override
    public String ref(AgentMessage answer) {
      return answer.getAdaptersWired().getRequestId();
    }

    @Override
    public Class<Echo> resultType() {
      return Echo.class;
    }

    @Override
    public HubMessage.Builder message(AgentJob job) {
      if (job.ref().startsWith("refused-")) {
        throw new Refused("cannot build it");
      }
      return HubMessage.newBuilder()
          .setWireAdapters(WireAdapters.newBuilder().setRequestId(job.ref()));
    }

    @Override
    public Echo answered(AgentJob job, AgentMessage answer) {
      return new Echo(job.ref(), true, answer.getAdaptersWired().getError());
    }

    @Override
    public Echo unanswered(AgentJob job, String reason) {
      return new Echo(job.ref(), false, reason);
    }

    @Override
    public String expired(AgentJob job, boolean held) {
      return "expired";
    }
  }

  /** Temporal as the hand-over sees it: what it was given, and whether it is reachable. */
  static final class Temporal implements JobHandOver {
    final List<Object> delivered = new CopyOnWriteArrayList<>();
    volatile Outcome next = Outcome.DELIVERED;

    @Override
    public Outcome deliver(AgentJobMapper.Handle handle, Object value) {
      if (next == Outcome.DELIVERED) {
        delivered.add(value);
      }
      return next;
    }
  }

  /** A clock the test moves. */
  static final class TestClock extends Clock {
    final AtomicReference<Instant> now = new AtomicReference<>(Instant.now());

    @Override
    public Instant instant() {
      return now.get();
    }

    void advance(Duration d) {
      now.updateAndGet(t -> t.plus(d));
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }

  /** One hub replica: its streams and its dispatcher. */
  final class Replica {
    final AgentConnections connections;
    final JobDispatcher dispatcher;
    final ParkedRequests requests;

    Replica(String id) {
      connections =
          new AgentConnections(
              hub.bean(ClusterMapper.class), hub.bean(AgentHealthMapper.class), id, clock, s -> {});
      dispatcher =
          new JobDispatcher(
              jobs, connections, temporal, hub.bean(TransactionTemplate.class), clock);
      dispatcher.register(new EchoKind());
      requests = new ParkedRequests(jobs, hub.bean(ClusterMapper.class), BOX, dispatcher, clock);
      dispatcher.register(
          requests.kind(
              "test_request",
              AgentMessage.PayloadCase.RECONCILE_REQUESTED,
              m -> m.getReconcileRequested().getRequestId(),
              null));
    }

    /** An agent's stream, welcomed on this replica. */
    AgentSession hold(UUID orgId, UUID clusterId, RecordingStream stream) {
      AgentSession s =
          new AgentSession(orgId, clusterId, UUID.randomUUID(), stream, clock.instant());
      s.connected(clock.instant(), List.of(), List.of(), false);
      connections.add(s);
      return s;
    }
  }

  TestClock clock;
  Temporal temporal;
  Replica a;
  Replica b;
  UUID cluster;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.shared();
    jobs = hub.bean(AgentJobMapper.class);
    org = HubTestSupport.defaultOrgId();
  }

  @BeforeEach
  void replicas() {
    clock = new TestClock();
    temporal = new Temporal();
    a = new Replica("replica-a");
    b = new Replica("replica-b");
    cluster = newCluster(OWNER_TOKEN);
  }

  static UUID newCluster(String token) {
    String name = "jobs-" + UUID.randomUUID().toString().substring(0, 8);
    JsonNode body =
        hub.post("/api/v2/clusters", token, Map.of("name", name, "environment", "staging")).body();
    return UUID.fromString(body.get("cluster").get("id").asText());
  }

  String park(UUID orgId, UUID clusterId, Instant deadline) {
    String ref = "job-" + UUID.randomUUID();
    park(orgId, clusterId, ref, deadline);
    return ref;
  }

  void park(UUID orgId, UUID clusterId, String ref, Instant deadline) {
    assertThat(
            jobs.park(
                UUID.randomUUID(),
                orgId,
                clusterId,
                "test_echo",
                ref,
                new byte[] {1, 2, 3},
                null,
                null,
                deadline,
                clock.instant()))
        .isEqualTo(1);
  }

  static final SecretBox BOX = new SecretBox(SecretBox.newKey());

  /** The cluster's row names a replica holding its stream, as the gateway's Hello writes it. */
  void connected(UUID clusterId) {
    hub.bean(ClusterMapper.class)
        .markConnected(org, clusterId, "replica-a", "0.1.0", List.of(), 30, Instant.now());
  }

  static HubMessage reconcile(String id) {
    return HubMessage.newBuilder()
        .setRequestReconcile(
            RequestReconcile.newBuilder()
                .setRequestId(id)
                .setRepoUrl("https://git/r")
                .setBranch("b"))
        .build();
  }

  @Test
  void aRequestAskedOnOneReplicaIsSentByTheHolderAndAnsweredBackToTheAsker() throws Exception {
    connected(cluster);
    RecordingStream stream = new RecordingStream();
    AgentSession onA = a.hold(org, cluster, stream);
    String id = UUID.randomUUID().toString();

    CompletableFuture<AgentMessage> answer =
        b.requests
            .ask(org, cluster, "test_request", id, reconcile(id), Duration.ofSeconds(20))
            .orElseThrow();
    assertThat(stream.sent).as("not held by the asking replica").isEmpty();
    // The commit's notification reaches the holding replica.
    a.dispatcher.sendQueued(org, cluster);
    assertThat(stream.sent)
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.getCorrelationId()).isEqualTo(id);
              assertThat(m.getRequestReconcile().getBranch()).isEqualTo("b");
            });
    assertThat(jobs.find(org, "test_request", id).map(j -> j.result()).orElse(null)).isNull();

    a.dispatcher.onAnswer(
        onA,
        AgentMessage.newBuilder()
            .setReconcileRequested(
                ReconcileRequested.newBuilder().setRequestId(id).setError("no such adapter"))
            .build());
    assertThat(answer.get(10, TimeUnit.SECONDS).getReconcileRequested().getError())
        .isEqualTo("no such adapter");
    assertThat(jobs.find(org, "test_request", id).orElseThrow().state())
        .isEqualTo(AgentJob.COMPLETED);
  }

  @Test
  void aRequestNobodyWaitsForAnyMoreIsNeverSent() {
    connected(cluster);
    String id = UUID.randomUUID().toString();
    CompletableFuture<AgentMessage> answer =
        b.requests
            .ask(org, cluster, "test_request", id, reconcile(id), Duration.ofMillis(200))
            .orElseThrow();
    clock.advance(Duration.ofSeconds(1));
    await().atMost(Duration.ofSeconds(10)).until(answer::isDone);
    assertThat(answer).isCompletedExceptionally();
    assertThat(jobs.find(org, "test_request", id).orElseThrow().state())
        .isEqualTo(AgentJob.CANCELLED);

    RecordingStream stream = new RecordingStream();
    a.dispatcher.sendWaiting(a.hold(org, cluster, stream));
    assertThat(stream.sent).isEmpty();
  }

  @Test
  void aRequestForAClusterNoReplicaHoldsIsNotParked() {
    String id = UUID.randomUUID().toString();
    assertThat(
            b.requests.ask(org, cluster, "test_request", id, reconcile(id), Duration.ofSeconds(1)))
        .isEmpty();
    assertThat(jobs.find(org, "test_request", id)).isEmpty();
  }

  static AgentMessage answer(String ref) {
    return AgentMessage.newBuilder()
        .setAdaptersWired(AdaptersWired.newBuilder().setRequestId(ref).setError("done"))
        .build();
  }

  static String state(UUID orgId, String ref) {
    return jobs.find(orgId, "test_echo", ref).orElseThrow().state();
  }

  Instant later() {
    return clock.instant().plus(Duration.ofHours(1));
  }

  @Test
  void onlyTheReplicaHoldingTheStreamSendsAJobAndItSendsItOnce() {
    String ref = park(org, cluster, later());
    RecordingStream stream = new RecordingStream();
    a.hold(org, cluster, stream);

    b.dispatcher.sendQueued(org, cluster);
    b.dispatcher.sweep();
    assertThat(state(org, ref)).isEqualTo(AgentJob.QUEUED);

    a.dispatcher.sendQueued(org, cluster);
    a.dispatcher.sendQueued(org, cluster);
    a.dispatcher.sweep();
    assertThat(stream.refs()).containsExactly(ref);
    assertThat(stream.sent.get(0).getWireAdapters().getRequestId()).isEqualTo(ref);
    AgentJob job = jobs.find(org, "test_echo", ref).orElseThrow();
    assertThat(job.state()).isEqualTo(AgentJob.SENT);
    assertThat(job.attempts()).isEqualTo(1);
  }

  @Test
  void aJobIsSentAgainAfterTheAgentReconnects() {
    String ref = park(org, cluster, later());
    RecordingStream first = new RecordingStream();
    a.dispatcher.sendWaiting(a.hold(org, cluster, first));
    assertThat(first.refs()).containsExactly(ref);

    // The agent comes back on the other replica: its Hello brings the job again.
    RecordingStream second = new RecordingStream();
    b.dispatcher.sendWaiting(b.hold(org, cluster, second));
    assertThat(second.refs()).containsExactly(ref);
    assertThat(jobs.find(org, "test_echo", ref).orElseThrow().attempts()).isEqualTo(2);
  }

  @Test
  void anAnswerIsRecordedThenHandedOverOnceAndARepeatIsIgnored() {
    String ref = park(org, cluster, later());
    RecordingStream stream = new RecordingStream();
    AgentSession onA = a.hold(org, cluster, stream);
    a.dispatcher.sendQueued(org, cluster);

    // The answer arrives at the other replica (the agent reconnected there), then again.
    AgentSession onB = b.hold(org, cluster, new RecordingStream());
    b.dispatcher.onAnswer(onB, answer(ref));
    a.dispatcher.onAnswer(onA, answer(ref));
    b.dispatcher.onAnswer(onB, answer(ref));

    assertThat(temporal.delivered).containsExactly(new Echo(ref, true, "done"));
    assertThat(state(org, ref)).isEqualTo(AgentJob.COMPLETED);
    assertThat(jobs.find(org, "test_echo", ref).orElseThrow().result()).contains("\"done\"");
  }

  @Test
  void anAnswerTemporalCouldNotTakeIsHandedOverByTheSweep() {
    String ref = park(org, cluster, later());
    AgentSession s = a.hold(org, cluster, new RecordingStream());
    a.dispatcher.sendQueued(org, cluster);

    temporal.next = JobHandOver.Outcome.UNREACHABLE;
    a.dispatcher.onAnswer(s, answer(ref));
    assertThat(state(org, ref)).isEqualTo(AgentJob.REPORTED);
    a.dispatcher.sweep();
    assertThat(state(org, ref)).as("still away").isEqualTo(AgentJob.REPORTED);

    temporal.next = JobHandOver.Outcome.DELIVERED;
    a.dispatcher.sweep();
    assertThat(temporal.delivered).as("a hand-over on its way is left alone").isEmpty();
    clock.advance(JobHandOver.DEADLINE.plusSeconds(1));
    a.dispatcher.sweep();
    a.dispatcher.sweep();
    assertThat(temporal.delivered).containsExactly(new Echo(ref, true, "done"));
    assertThat(state(org, ref)).isEqualTo(AgentJob.COMPLETED);
  }

  @Test
  void anAnswerNobodyWaitsForAnyMoreEndsTheJob() {
    String ref = park(org, cluster, later());
    AgentSession s = a.hold(org, cluster, new RecordingStream());
    temporal.next = JobHandOver.Outcome.GONE;
    a.dispatcher.onAnswer(s, answer(ref));
    assertThat(state(org, ref)).isEqualTo(AgentJob.COMPLETED);
  }

  @Test
  void aCancelledJobIsNeverSentNorAnswered() {
    String ref = park(org, cluster, later());
    assertThat(jobs.cancel(org, "test_echo", ref, clock.instant())).isEqualTo(1);
    RecordingStream stream = new RecordingStream();
    AgentSession s = a.hold(org, cluster, stream);
    a.dispatcher.sendWaiting(s);
    a.dispatcher.sendQueued(org, cluster);
    a.dispatcher.sweep();
    a.dispatcher.onAnswer(s, answer(ref));
    assertThat(stream.sent).isEmpty();
    assertThat(temporal.delivered).isEmpty();
    assertThat(state(org, ref)).isEqualTo(AgentJob.CANCELLED);
  }

  @Test
  void aJobPastItsDeadlineOrRefusedIsAnsweredByTheHubNotSent() {
    String expired = park(org, cluster, clock.instant().minusSeconds(1));
    String refused = "refused-" + UUID.randomUUID();
    park(org, cluster, refused, later());
    RecordingStream stream = new RecordingStream();
    a.dispatcher.sendWaiting(a.hold(org, cluster, stream));

    assertThat(stream.sent).isEmpty();
    assertThat(temporal.delivered)
        .containsExactlyInAnyOrder(
            new Echo(expired, false, "expired"), new Echo(refused, false, "cannot build it"));
    assertThat(state(org, expired)).isEqualTo(AgentJob.COMPLETED);
  }

  @Test
  void anotherOrganizationsJobIsNeverSentNorAnsweredOnAStream() {
    JsonNode other = hub.createOrg("jobs-" + UUID.randomUUID().toString().substring(0, 8));
    UUID theirOrg = UUID.fromString(other.get("org").get("id").asText());
    UUID theirCluster = newCluster(other.get("ownerToken").asText());
    String theirs = park(theirOrg, theirCluster, later());

    // A stream of this organization that names their cluster's id.
    RecordingStream stream = new RecordingStream();
    AgentSession s = a.hold(org, theirCluster, stream);
    a.dispatcher.sendWaiting(s);
    a.dispatcher.sendQueued(org, theirCluster);
    a.dispatcher.sendQueued(theirOrg, theirCluster);
    a.dispatcher.sweep();
    a.dispatcher.onAnswer(s, answer(theirs));

    assertThat(stream.sent).isEmpty();
    assertThat(temporal.delivered).isEmpty();
    assertThat(jobs.find(org, "test_echo", theirs)).isEmpty();
    assertThat(state(theirOrg, theirs)).isEqualTo(AgentJob.QUEUED);
  }
}
