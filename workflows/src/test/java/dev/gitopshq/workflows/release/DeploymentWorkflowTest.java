package dev.gitopshq.workflows.release;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.workflows.Histories;
import dev.gitopshq.workflows.TaskQueues;
import dev.gitopshq.workflows.approval.ApprovalActivities;
import dev.gitopshq.workflows.approval.ApprovalRequest;
import dev.gitopshq.workflows.approval.ApprovalVote;
import dev.gitopshq.workflows.approval.ApprovalWorkflow;
import dev.gitopshq.workflows.approval.ApprovalWorkflowImpl;
import dev.gitopshq.workflows.approval.RecordedVote;
import dev.gitopshq.workflows.governance.Decision;
import dev.gitopshq.workflows.governance.FreezeCheck;
import dev.gitopshq.workflows.governance.Notification;
import dev.gitopshq.workflows.governance.Requester;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every branch of release deploys, promotions and rollbacks, with time skipping. */
class DeploymentWorkflowTest {
  static final String ORG = "00000000-0000-0000-0000-000000000001";
  static final String PROJECT = "00000000-0000-0000-0000-0000000000a1";
  static final Requester ALICE =
      new Requester("alice", "member", "alice@example.com", "member", List.of(), List.of());
  static final long APPROVAL_SECONDS = Duration.ofHours(24).toSeconds();

  TestWorkflowEnvironment env;
  WorkflowClient client;
  FakeStore store;
  FakeInbox inbox;
  FakeDirect direct;
  FakeRuntime runtime;

  static final class FakeStore implements ReleaseActivities {
    final List<String> timeline = new CopyOnWriteArrayList<>();
    final Map<Integer, DeploymentStatus> seqs = new ConcurrentHashMap<>();
    final List<Notification> notifications = new CopyOnWriteArrayList<>();
    final AtomicInteger sourceCalls = new AtomicInteger();
    final AtomicInteger decideCalls = new AtomicInteger();
    final AtomicInteger applies = new AtomicInteger();
    volatile int sourceNotReadyFor;
    volatile boolean generationFailed;
    volatile FreezeCheck freeze = new FreezeCheck("freeze", 1, false, false, List.of());
    volatile Decision decision;

    @Override
    public void transition(
        String orgId,
        String deploymentId,
        int seq,
        DeploymentStatus status,
        String actor,
        String detail) {
      if (seqs.putIfAbsent(seq, status) == null) {
        timeline.add(status + " by " + actor + ": " + detail);
      }
    }

    @Override
    public String resolveSource(String orgId, String releaseId) {
      int call = sourceCalls.incrementAndGet();
      if (generationFailed) {
        throw ApplicationFailure.newNonRetryableFailure(
            "the delivery generation of revision 12 failed: web for acme: template error",
            ReleaseFailures.NO_DELIVERY);
      }
      if (call <= sourceNotReadyFor) {
        throw new IllegalStateException("revision 12 is still being generated");
      }
      return "abc123";
    }

    @Override
    public FreezeCheck checkFreeze(DeploymentRequest request) {
      return freeze;
    }

    @Override
    public Decision decide(DeploymentRequest request) {
      decideCalls.incrementAndGet();
      return decision;
    }

    @Override
    public Map<String, String> apply(String orgId, String deploymentId) {
      applies.incrementAndGet();
      return Map.of("production", "0123456789abcdef0123");
    }

    @Override
    public void notify(Notification notification) {
      notifications.add(notification);
    }

    List<String> events() {
      return notifications.stream().map(Notification::event).toList();
    }
  }

  /** The direct-deploy side: which clusters are direct, and what their agents report. */
  static final class FakeDirect implements DirectApplyActivities {
    volatile List<DirectTarget> targets = List.of();
    volatile String unavailable;
    final Map<String, DirectOutcome> outcomes = new ConcurrentHashMap<>();
    final List<String> applied = new CopyOnWriteArrayList<>();
    final Map<String, Integer> recordedAt = new ConcurrentHashMap<>();

    @Override
    public List<DirectTarget> targets(String orgId, String deploymentId) {
      if (unavailable != null) {
        throw ApplicationFailure.newNonRetryableFailure(unavailable, UNAVAILABLE);
      }
      return targets;
    }

    @Override
    public DirectOutcome apply(
        String orgId, String deploymentId, String applyId, DirectTarget target, String commit) {
      applied.add(applyId + "@" + commit);
      return outcomes.getOrDefault(target.cluster(), new DirectOutcome(true, "", 2));
    }

    @Override
    public int record(String orgId, String deploymentId, String applyId, int firstSeq) {
      recordedAt.put(applyId, firstSeq);
      return 2;
    }
  }

  /** The adapter side: which clusters deliver through Flux or Argo CD, and what they report. */
  static final class FakeRuntime implements RuntimeActivities {
    volatile List<RuntimeTarget> targets = List.of();
    final Map<String, RuntimeObservation> observations = new ConcurrentHashMap<>();
    final Map<String, Long> deadlines = new ConcurrentHashMap<>();
    final List<String> watched = new CopyOnWriteArrayList<>();

    @Override
    public List<RuntimeTarget> runtimeTargets(String orgId, String deploymentId) {
      return targets;
    }

    @Override
    public RuntimeObservation verify(
        String orgId,
        String deploymentId,
        RuntimeTarget target,
        String commit,
        long deadlineMillis) {
      watched.add(target.cluster() + "@" + commit);
      deadlines.put(target.cluster(), deadlineMillis);
      return observations.getOrDefault(
          target.cluster(),
          new RuntimeObservation(
              true, "flux:flux-system/" + target.cluster(), commit, "Ready", "", 0));
    }
  }

  static final class FakeInbox implements ApprovalActivities {
    final Map<String, CountDownLatch> opened = new ConcurrentHashMap<>();
    final Map<String, String> kinds = new ConcurrentHashMap<>();
    final Map<String, String> closed = new ConcurrentHashMap<>();

    CountDownLatch latch(String id) {
      return opened.computeIfAbsent(id, k -> new CountDownLatch(1));
    }

    @Override
    public void open(ApprovalRequest request) {
      kinds.put(request.approvalId(), request.kind());
      latch(request.approvalId()).countDown();
    }

    @Override
    public void recordVote(String orgId, String approvalId, int index, RecordedVote vote) {}

    @Override
    public void close(String orgId, String approvalId, String outcome) {
      closed.put(approvalId, outcome);
    }
  }

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance();
    Worker worker = env.newWorker(TaskQueues.HUB);
    worker.registerWorkflowImplementationTypes(
        ReleaseWorkflowImpl.class, RollbackWorkflowImpl.class, ApprovalWorkflowImpl.class);
    store = new FakeStore();
    inbox = new FakeInbox();
    direct = new FakeDirect();
    runtime = new FakeRuntime();
    worker.registerActivitiesImplementations(store, inbox, direct, runtime);
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  static Decision decision(String outcome, int approvers, String... reasons) {
    return new Decision(
        "release", 2, outcome, approvers, List.of("admin", "owner"), List.of(), List.of(reasons));
  }

  static DeploymentRequest request(String id, String action, boolean breakGlass) {
    return new DeploymentRequest(
        ORG,
        PROJECT,
        "rel-" + id,
        id,
        action,
        List.of("production"),
        ALICE,
        breakGlass,
        breakGlass ? "checkout is down for every customer, hotfix needed" : "",
        APPROVAL_SECONDS,
        "release #4 of shop to production");
  }

  DeploymentRequest start(String id, String action, boolean breakGlass) {
    DeploymentRequest r = request(id, action, breakGlass);
    WorkflowOptions o =
        WorkflowOptions.newBuilder()
            .setTaskQueue(TaskQueues.HUB)
            .setWorkflowId(r.workflowId())
            .build();
    if (DeploymentRequest.ROLLBACK.equals(action)) {
      WorkflowClient.start(client.newWorkflowStub(RollbackWorkflow.class, o)::run, r);
    } else {
      WorkflowClient.start(client.newWorkflowStub(ReleaseWorkflow.class, o)::run, r);
    }
    return r;
  }

  DeploymentResult result(DeploymentRequest r) {
    return client.newUntypedWorkflowStub(r.workflowId()).getResult(DeploymentResult.class);
  }

  ApprovalWorkflow approval(String id) throws InterruptedException {
    assertThat(inbox.latch(id).await(10, TimeUnit.SECONDS)).as("approval opened").isTrue();
    return client.newWorkflowStub(ApprovalWorkflow.class, ApprovalRequest.workflowId(id));
  }

  static ApprovalVote vote(String who, String role, boolean approve, String comment) {
    return new ApprovalVote(who, who + "@example.com", role, List.of(), approve, comment);
  }

  @Test
  void autoApprovedReleaseDeploysOnceItsDeliveryIsGenerated() {
    store.sourceNotReadyFor = 2;
    store.decision = decision(Decision.AUTO_APPROVE, 0, "staging deploys are auto-approved");
    DeploymentResult r = result(start("d-auto", DeploymentRequest.DEPLOY, false));
    Histories.save(client, "deployment-d-auto", "release-auto-approved");

    assertThat(r.status()).isEqualTo(DeploymentStatus.deployed);
    assertThat(r.commits()).containsEntry("production", "0123456789abcdef0123");
    assertThat(store.sourceCalls).hasValue(3);
    assertThat(store.applies).hasValue(1);
    assertThat(store.timeline.getLast())
        .startsWith("deployed by system: deployed production@0123456789ab");
  }

  @Test
  void directClustersApplyTheNewCommitAndTheirLinesFollowInTheTimeline() {
    store.decision = decision(Decision.AUTO_APPROVE, 0, "auto");
    direct.targets =
        List.of(
            new DirectTarget("production", "c-1", "eu-1"),
            new DirectTarget("production", "c-2", "us-1"));
    DeploymentResult r = result(start("d-direct", DeploymentRequest.DEPLOY, false));
    Histories.save(client, "deployment-d-direct", "release-direct");

    assertThat(r.status()).isEqualTo(DeploymentStatus.deployed);
    assertThat(direct.applied)
        .containsExactlyInAnyOrder(
            "d-direct:production:c-1@0123456789abcdef0123",
            "d-direct:production:c-2@0123456789abcdef0123");
    assertThat(store.timeline)
        .contains("deploying by system: applying directly on eu-1 (production), us-1 (production)");
    // Each apply's lines take the sequence numbers after what came before, and the final event
    // comes after both: nothing is numbered twice.
    int first = direct.recordedAt.get("d-direct:production:c-1");
    int second = direct.recordedAt.get("d-direct:production:c-2");
    assertThat(second).isEqualTo(first + 2);
    assertThat(store.seqs.keySet()).doesNotContain(first, first + 1, second, second + 1);
    assertThat(store.seqs.keySet().stream().mapToInt(Integer::intValue).max().getAsInt())
        .isEqualTo(second + 2);
  }

  @Test
  void aDeploymentIsDeployedOnlyOnceEveryFluxOrArgoClusterRunsItsCommit() {
    store.decision = decision(Decision.AUTO_APPROVE, 0, "auto");
    runtime.targets =
        List.of(
            new RuntimeTarget("production", "c-1", "eu-1", "flux", 300),
            new RuntimeTarget("production", "c-2", "us-1", "argocd", 600));
    long before = env.currentTimeMillis();
    DeploymentResult r = result(start("d-runtime", DeploymentRequest.DEPLOY, false));
    Histories.save(client, "deployment-d-runtime", "release-runtime-verified");

    assertThat(r.status()).isEqualTo(DeploymentStatus.deployed);
    assertThat(runtime.watched)
        .containsExactlyInAnyOrder("eu-1@0123456789abcdef0123", "us-1@0123456789abcdef0123");
    // Each cluster gets its own environment's timeout, counted from when the watch began.
    assertThat(runtime.deadlines.get("us-1") - runtime.deadlines.get("eu-1")).isEqualTo(300_000);
    assertThat(runtime.deadlines.get("eu-1")).isBetween(before + 300_000, before + 360_000);
    assertThat(store.timeline)
        .contains(
            "deploying by system: waiting for eu-1 (production, flux), us-1 (production, argocd)"
                + " to run the deployment",
            "deploying by cluster eu-1: eu-1 (production) runs 0123456789ab through"
                + " flux:flux-system/eu-1: Ready");
    assertThat(store.timeline.getLast()).startsWith("deployed by system: deployed production@");
  }

  @Test
  void aClusterThatDoesNotRunTheCommitInTimeLeavesTheDeploymentDegraded() {
    store.decision = decision(Decision.AUTO_APPROVE, 0, "auto");
    runtime.targets =
        List.of(
            new RuntimeTarget("production", "c-1", "eu-1", "flux", 300),
            new RuntimeTarget("production", "c-2", "us-1", "flux", 300));
    runtime.observations.put(
        "us-1",
        new RuntimeObservation(
            false,
            "flux:flux-system/shop",
            "fedcba9876543210",
            "Ready False",
            "Flux runs fedcba987654, not 0123456789ab, after 300 s: Deployment/web dry-run failed",
            0));
    DeploymentResult r = result(start("d-degraded", DeploymentRequest.DEPLOY, false));
    Histories.save(client, "deployment-d-degraded", "release-runtime-degraded");

    assertThat(r.status()).isEqualTo(DeploymentStatus.degraded);
    assertThat(r.detail())
        .isEqualTo(
            "us-1 (production): Flux runs fedcba987654, not 0123456789ab, after 300 s:"
                + " Deployment/web dry-run failed");
    // The commits stay written: the deployment happened, the cluster did not follow.
    assertThat(r.commits()).containsEntry("production", "0123456789abcdef0123");
    assertThat(store.events()).contains("deployment.degraded");
    assertThat(DeploymentStatus.degraded.isFinal()).isTrue();
  }

  @Test
  void aFailedDirectApplyFailsTheDeploymentAndKeepsItsCommits() {
    store.decision = decision(Decision.AUTO_APPROVE, 0, "auto");
    direct.targets = List.of(new DirectTarget("production", "c-1", "eu-1"));
    direct.outcomes.put(
        "eu-1", new DirectOutcome(false, "1 of 2 objects failed or are not healthy", 2));
    DeploymentResult r = result(start("d-direct-fail", DeploymentRequest.DEPLOY, false));

    assertThat(r.status()).isEqualTo(DeploymentStatus.failed);
    assertThat(r.detail())
        .isEqualTo("direct apply on eu-1 (production): 1 of 2 objects failed or are not healthy");
    assertThat(r.commits()).containsEntry("production", "0123456789abcdef0123");
    assertThat(store.events()).contains("deployment.failed");
  }

  @Test
  void aDirectClusterWithoutTheCapabilityFailsBeforeAnythingIsWritten() {
    store.decision = decision(Decision.AUTO_APPROVE, 0, "auto");
    direct.unavailable = "the agent of eu-1 (production) has not announced direct.deploy";
    DeploymentResult r = result(start("d-direct-off", DeploymentRequest.DEPLOY, false));

    assertThat(r.status()).isEqualTo(DeploymentStatus.failed);
    assertThat(r.detail())
        .isEqualTo("the agent of eu-1 (production) has not announced direct.deploy");
    assertThat(store.applies).hasValue(0);
    assertThat(direct.applied).isEmpty();
  }

  @Test
  void aRollbackAppliesTheRestoredFilesDirectlyToo() {
    store.decision = decision(Decision.AUTO_APPROVE, 0, "auto");
    direct.targets = List.of(new DirectTarget("production", "c-1", "eu-1"));
    DeploymentResult r = result(start("d-direct-rb", DeploymentRequest.ROLLBACK, false));

    assertThat(r.status()).isEqualTo(DeploymentStatus.deployed);
    assertThat(direct.applied).containsExactly("d-direct-rb:production:c-1@0123456789abcdef0123");
  }

  @Test
  void aFrozenEnvironmentBlocksTheDeployBeforeAnyDecision() {
    store.freeze =
        new FreezeCheck(
            "freeze",
            3,
            true,
            true,
            List.of("production is frozen until 2026-12-27T00:00:00Z: year-end freeze"));
    DeploymentResult r = result(start("d-frozen", DeploymentRequest.PROMOTE, false));
    Histories.save(client, "deployment-d-frozen", "release-frozen");

    assertThat(r.status()).isEqualTo(DeploymentStatus.frozen);
    assertThat(r.detail()).contains("year-end freeze");
    assertThat(store.decideCalls).hasValue(0);
    assertThat(store.applies).hasValue(0);
    assertThat(store.timeline.getLast()).startsWith("frozen by policy freeze v3");
  }

  @Test
  void breakGlassPassesAFreezeDeploysAtOnceAndLeavesAReview() throws Exception {
    store.freeze =
        new FreezeCheck("freeze", 3, true, false, List.of("production is frozen: year-end freeze"));
    store.decision = decision(Decision.BREAK_GLASS, 0, "break-glass by an admin");
    DeploymentRequest req = start("d-bg", DeploymentRequest.DEPLOY, true);
    DeploymentResult r = result(req);
    Histories.save(client, "deployment-d-bg", "release-break-glass");

    assertThat(r.status()).isEqualTo(DeploymentStatus.deployed);
    assertThat(store.timeline).anyMatch(e -> e.contains("frozen, passing under break-glass"));
    assertThat(store.events()).containsExactly("break_glass.used");
    approval("d-bg-review");
    assertThat(inbox.kinds).containsEntry("d-bg-review", "break_glass_review");
  }

  @Test
  void aReleaseThatNeedsApprovalWaitsForAnEligibleApproverWhoIsNotTheRequester() throws Exception {
    store.decision = decision(Decision.REQUIRE_APPROVAL, 1, "production needs one approval");
    DeploymentRequest req = start("d-approve", DeploymentRequest.DEPLOY, false);
    ApprovalWorkflow approval = approval("d-approve");
    assertThat(inbox.kinds).containsEntry("d-approve", "release");

    approval.vote(vote("alice", "admin", true, "lgtm (my own)"));
    approval.vote(vote("bob", "admin", true, "ship it"));
    DeploymentResult r = result(req);
    Histories.save(client, "deployment-d-approve", "release-approved");

    assertThat(r.status()).isEqualTo(DeploymentStatus.deployed);
    assertThat(store.applies).hasValue(1);
    assertThat(store.events()).containsExactly("approval.requested");
    assertThat(store.timeline).anyMatch(e -> e.startsWith("pending_approval"));
  }

  @Test
  void aRejectedReleaseIsNeverWritten() throws Exception {
    store.decision = decision(Decision.REQUIRE_APPROVAL, 1, "production needs one approval");
    DeploymentRequest req = start("d-reject", DeploymentRequest.PROMOTE, false);
    approval("d-reject").vote(vote("bob", "owner", false, "not during the sale"));
    DeploymentResult r = result(req);

    assertThat(inbox.kinds).containsEntry("d-reject", "promotion");
    assertThat(r.status()).isEqualTo(DeploymentStatus.rejected);
    assertThat(r.detail()).contains("not during the sale");
    assertThat(store.applies).hasValue(0);
  }

  @Test
  void aReleaseWhoseGenerationFailedFailsWithoutDeploying() {
    store.generationFailed = true;
    DeploymentResult r = result(start("d-nogen", DeploymentRequest.DEPLOY, false));

    assertThat(r.status()).isEqualTo(DeploymentStatus.failed);
    assertThat(r.detail()).contains("generation of revision 12 failed");
    assertThat(store.sourceCalls).as("not retried").hasValue(1);
    assertThat(store.applies).hasValue(0);
  }

  @Test
  void aRollbackIsGovernedTheSameWayAndNeedsNoGeneration() throws Exception {
    store.decision =
        decision(Decision.REQUIRE_APPROVAL, 1, "rollbacks in production need one approval");
    DeploymentRequest req = start("d-rb", DeploymentRequest.ROLLBACK, false);
    assertThat(req.workflowId()).isEqualTo("rollback-rel-d-rb");
    approval("d-rb").vote(vote("bob", "admin", true, ""));
    DeploymentResult r = result(req);
    Histories.save(client, "rollback-rel-d-rb", "rollback-approved");

    assertThat(inbox.kinds).containsEntry("d-rb", "rollback");
    assertThat(r.status()).isEqualTo(DeploymentStatus.deployed);
    assertThat(store.sourceCalls).hasValue(0);
    assertThat(store.applies).hasValue(1);
  }

  @Test
  void cancellingWhileWaitingForApproversWithdrawsTheApproval() throws Exception {
    store.decision = decision(Decision.REQUIRE_APPROVAL, 1, "production needs one approval");
    DeploymentRequest req = start("d-cancel", DeploymentRequest.DEPLOY, false);
    approval("d-cancel");
    client.newWorkflowStub(ReleaseWorkflow.class, req.workflowId()).cancel("alice@example.com");
    DeploymentResult r = result(req);

    assertThat(r.status()).isEqualTo(DeploymentStatus.cancelled);
    assertThat(inbox.closed).containsEntry("d-cancel", "cancelled");
    assertThat(store.applies).hasValue(0);
  }

  @Test
  void approversWhoNeverAnswerLetTheReleaseExpire() throws Exception {
    store.decision = decision(Decision.REQUIRE_APPROVAL, 1, "production needs one approval");
    DeploymentRequest req = start("d-expire", DeploymentRequest.DEPLOY, false);
    approval("d-expire");
    env.sleep(Duration.ofSeconds(APPROVAL_SECONDS + 60));
    DeploymentResult r = result(req);

    assertThat(r.status()).isEqualTo(DeploymentStatus.expired);
    assertThat(store.applies).hasValue(0);
  }

  @Test
  void aDeniedReleaseNamesThePolicysReason() {
    store.decision =
        decision(Decision.DENY, 0, "requester pat has role viewer, and viewers cannot release");
    DeploymentResult r = result(start("d-deny", DeploymentRequest.DEPLOY, false));

    assertThat(r.status()).isEqualTo(DeploymentStatus.rejected);
    assertThat(r.detail()).contains("viewers cannot release");
    assertThat(store.applies).hasValue(0);
  }
}
