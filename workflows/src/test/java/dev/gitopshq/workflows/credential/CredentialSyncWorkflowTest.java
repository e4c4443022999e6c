package dev.gitopshq.workflows.credential;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.workflows.Histories;
import dev.gitopshq.workflows.TaskQueues;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CredentialSyncWorkflowTest {
  static final String REPLICA = "replica-1";

  /** The value a credential holds; the sender opens it, nothing else may ever see it. */
  static final String CANARY = "canary-5d1f0e8a9b7c4e2f";

  TestWorkflowEnvironment env;
  Store store;
  Sender sender;
  Jobs jobs;

  /** Records each decision; denies what {@code deny} names. */
  static final class Store implements CredentialSyncActivities {
    final List<String> causes = new CopyOnWriteArrayList<>();
    final List<String> actors = new CopyOnWriteArrayList<>();
    final List<String> syncIds = new CopyOnWriteArrayList<>();
    volatile List<String> deny = List.of();
    volatile String holder = REPLICA;
    volatile CountDownLatch firstStarted = new CountDownLatch(1);
    volatile CountDownLatch release = new CountDownLatch(0);

    @Override
    public SyncDecision decide(
        String orgId, String clusterId, String syncId, String cause, String actor) {
      causes.add(cause);
      actors.add(actor);
      syncIds.add(syncId);
      firstStarted.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      // Two credentials, one target each: "registry" (k1) and "ci" (k2); a denied target's
      // credential is not sent.
      List<String> credentials = new ArrayList<>();
      if (deny.stream().noneMatch(d -> d.startsWith("registry/"))) {
        credentials.add("k1");
      }
      if (deny.stream().noneMatch(d -> d.startsWith("ci/"))) {
        credentials.add("k2");
      }
      return new SyncDecision(2 - deny.size(), deny, credentials);
    }

    @Override
    public String streamHolder(String orgId, String clusterId) {
      return holder;
    }
  }

  /** Sends the prune list on the holding replica; fails the first attempts. */
  static final class Sender implements CredentialSendActivities {
    final List<String> syncIds = new CopyOnWriteArrayList<>();
    final List<Long> at = new CopyOnWriteArrayList<>();
    final AtomicInteger failFirst = new AtomicInteger();
    volatile String skipped = "";
    TestWorkflowEnvironment env;

    @Override
    public SyncSent sync(String orgId, String clusterId, String syncId) {
      throw new AssertionError("version 0's send; new runs park jobs");
    }

    @Override
    public SyncSent prune(String orgId, String clusterId, String syncId) {
      syncIds.add(syncId);
      at.add(env.currentTimeMillis());
      if (failFirst.getAndDecrement() > 0) {
        throw new IllegalStateException("this hub replica holds no stream of cluster " + clusterId);
      }
      return new SyncSent(0, 0, skipped);
    }
  }

  /**
   * The job pipeline: "opens" the credential (here: holds the canary), puts it on the (fake) wire
   * and answers as the agent would; a credential in {@code unanswered} is answered by the hub.
   */
  static final class Jobs implements CredentialJobActivities {
    final List<String> sent = new CopyOnWriteArrayList<>();
    final List<String> wire = new CopyOnWriteArrayList<>();
    volatile List<String> unanswered = List.of();

    @Override
    public CredentialSynced send(
        String orgId, String clusterId, String syncId, String credentialId) {
      sent.add(syncId + "/" + credentialId);
      if (unanswered.contains(credentialId)) {
        return new CredentialSynced(
            credentialId, 0, 0, 0, "the cluster's agent did not take the credential in time");
      }
      wire.add(CANARY);
      return new CredentialSynced(credentialId, 3, 1, 0, "");
    }
  }

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance();
    Worker hub = env.newWorker(TaskQueues.HUB);
    hub.registerWorkflowImplementationTypes(CredentialSyncWorkflowImpl.class);
    store = new Store();
    jobs = new Jobs();
    hub.registerActivitiesImplementations(store, jobs);
    sender = new Sender();
    sender.env = env;
    env.newWorker(TaskQueues.replica(REPLICA)).registerActivitiesImplementations(sender);
    env.start();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  CredentialSyncWorkflow stub(CredentialSyncRequest r) {
    return env.getWorkflowClient()
        .newWorkflowStub(
            CredentialSyncWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.HUB)
                .setWorkflowId(r.workflowId())
                .build());
  }

  /** The workflow's history as JSON, with every payload decoded from base64 after it. */
  String history(String workflowId) {
    String json = env.getWorkflowClient().fetchHistory(workflowId).toJson(false);
    StringBuilder out = new StringBuilder(json);
    Matcher m = Pattern.compile("\"data\":\\s*\"([A-Za-z0-9+/=]+)\"").matcher(json);
    int payloads = 0;
    while (m.find()) {
      out.append('\n').append(new String(Base64.getDecoder().decode(m.group(1)), UTF_8));
      payloads++;
    }
    assertThat(payloads).as("decoded payloads").isGreaterThan(3);
    return out.toString();
  }

  @Test
  void decidesThenSendsTheRoundItDecidedOnTheReplicaHoldingTheStream() {
    CredentialSyncRequest r =
        new CredentialSyncRequest("org", "c1", "the agent connected", "system");

    SyncOutcome done = stub(r).sync(r);

    assertThat(done.state()).isEqualTo(SyncOutcome.SENT);
    assertThat(done.allowed()).isEqualTo(2);
    assertThat(done.sent()).isEqualTo(2);
    assertThat(store.causes).containsExactly("the agent connected");
    // The prune list from the holding replica, then one job per allowed credential.
    assertThat(sender.syncIds).containsExactlyElementsOf(store.syncIds);
    String syncId = store.syncIds.get(0);
    assertThat(jobs.sent).containsExactlyInAnyOrder(syncId + "/k1", syncId + "/k2");
    assertThat(jobs.wire).containsExactly(CANARY, CANARY);
    // The value went on the (fake) wire; the workflow's history holds ids, names and counts only.
    String history = history(r.workflowId());
    assertThat(history)
        .contains(syncId)
        .contains(CredentialSyncWorkflowImpl.JOBS_CHANGE)
        .doesNotContain(CANARY);
    Histories.save(env.getWorkflowClient(), r.workflowId(), "credential-sync-jobs-sent");
  }

  @Test
  void changesThatArriveWhileItSyncsAreSyncedOnceMoreTogether() throws Exception {
    store.release = new CountDownLatch(1);
    CredentialSyncRequest r =
        new CredentialSyncRequest("org", "c2", "the agent connected", "system");
    WorkflowClient.start(stub(r)::sync, r);
    assertThat(store.firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
    CredentialSyncWorkflow running =
        env.getWorkflowClient().newWorkflowStub(CredentialSyncWorkflow.class, r.workflowId());
    running.again(new SyncCause("credential registry assignments changed", "user-1"));
    running.again(new SyncCause("credential registry changed", "user-1"));
    store.release.countDown();
    SyncOutcome done =
        env.getWorkflowClient().newUntypedWorkflowStub(r.workflowId()).getResult(SyncOutcome.class);

    assertThat(done.state()).isEqualTo(SyncOutcome.SENT);
    assertThat(store.causes)
        .containsExactly(
            "the agent connected",
            "credential registry assignments changed; credential registry changed");
    assertThat(store.actors).containsExactly("system", "user-1");
    // Two rounds, each with its own key, each sent once.
    assertThat(store.syncIds).doesNotHaveDuplicates().hasSize(2);
    assertThat(sender.syncIds).containsExactlyElementsOf(store.syncIds);
    assertThat(jobs.sent)
        .containsExactlyInAnyOrder(
            store.syncIds.get(0) + "/k1",
            store.syncIds.get(0) + "/k2",
            store.syncIds.get(1) + "/k1",
            store.syncIds.get(1) + "/k2");
  }

  @Test
  void deniedTargetsAreReportedAndTheRoundStillSendsSoTheAgentPrunesThem() {
    store.deny = List.of("registry/kube-system");
    CredentialSyncRequest r =
        new CredentialSyncRequest("org", "c3", "credential registry assignments changed", "u-9");

    SyncOutcome done = stub(r).sync(r);

    assertThat(done.denied()).containsExactly("registry/kube-system");
    assertThat(done.allowed()).isEqualTo(1);
    assertThat(done.state()).isEqualTo(SyncOutcome.SENT);
    assertThat(sender.syncIds).hasSize(1);
    // The denied credential is never sent; the prune list went, so its Secret is removed.
    assertThat(jobs.sent).containsExactly(store.syncIds.get(0) + "/k2");
    Histories.save(env.getWorkflowClient(), r.workflowId(), "credential-sync-jobs-denied");
  }

  @Test
  void aFailedSendIsRetriedThenTheRoundAgainAfterABackoffWithAFreshDecision() {
    // The three attempts of the first round fail (the activity's own retries), then those of the
    // second; the third round sends.
    sender.failFirst.set(6);
    CredentialSyncRequest r =
        new CredentialSyncRequest("org", "c4", "the agent connected", "system");

    SyncOutcome done = stub(r).sync(r);

    assertThat(done.state()).isEqualTo(SyncOutcome.SENT);
    assertThat(store.causes)
        .containsExactly(
            "the agent connected", "retrying a send that failed", "retrying a send that failed");
    assertThat(sender.syncIds).hasSize(7);
    assertThat(sender.syncIds.subList(0, 3)).containsOnly(store.syncIds.get(0));
    assertThat(sender.syncIds.subList(3, 6)).containsOnly(store.syncIds.get(1));
    assertThat(sender.syncIds.get(6)).isEqualTo(store.syncIds.get(2));
    // The rounds wait 30 s, then 60 s.
    assertThat(sender.at.get(3) - sender.at.get(2)).isGreaterThanOrEqualTo(30_000);
    assertThat(sender.at.get(6) - sender.at.get(5)).isGreaterThanOrEqualTo(60_000);
  }

  @Test
  void withNoReplicaHoldingTheStreamNothingIsSentAndTheSyncEnds() {
    store.holder = null;
    CredentialSyncRequest r =
        new CredentialSyncRequest("org", "c5", "credential registry changed", "u-1");

    SyncOutcome done = stub(r).sync(r);

    assertThat(done.state()).isEqualTo(SyncOutcome.NOT_CONNECTED);
    assertThat(store.causes).hasSize(1);
    assertThat(sender.syncIds).isEmpty();
    assertThat(jobs.sent).isEmpty();
  }

  @Test
  void aCredentialTheAgentDidNotAnswerFailsTheRoundWhichIsDecidedAndSentAgain() {
    jobs.unanswered = List.of("k2");
    CredentialSyncRequest r =
        new CredentialSyncRequest("org", "c6", "the agent connected", "system");
    WorkflowClient.start(stub(r)::sync, r);
    // The first round: k1 answered, k2 not; the round is retried after 30 s with a fresh decision.
    env.sleep(Duration.ofSeconds(5));
    assertThat(store.syncIds).hasSize(1);
    jobs.unanswered = List.of();
    env.sleep(Duration.ofSeconds(40));
    SyncOutcome done =
        env.getWorkflowClient().newUntypedWorkflowStub(r.workflowId()).getResult(SyncOutcome.class);

    assertThat(done.state()).isEqualTo(SyncOutcome.SENT);
    assertThat(done.sent()).isEqualTo(2);
    assertThat(store.causes).containsExactly("the agent connected", "retrying a send that failed");
    assertThat(jobs.sent).hasSize(4);
  }

  @Test
  void anAgentWithoutTheCapabilityGetsNoJob() {
    sender.skipped = "the cluster's agent did not announce the credential.sync capability";
    CredentialSyncRequest r =
        new CredentialSyncRequest("org", "c7", "the agent connected", "system");

    SyncOutcome done = stub(r).sync(r);

    // Its targets were failed with why by the prune step; nothing is retried.
    assertThat(done.state()).isEqualTo(SyncOutcome.SENT);
    assertThat(done.sent()).isZero();
    assertThat(store.causes).hasSize(1);
    assertThat(jobs.sent).isEmpty();
  }
}
