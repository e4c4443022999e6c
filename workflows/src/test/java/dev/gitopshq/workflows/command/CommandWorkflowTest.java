package dev.gitopshq.workflows.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.workflows.Histories;
import dev.gitopshq.workflows.TaskQueues;
import dev.gitopshq.workflows.approval.ApprovalActivities;
import dev.gitopshq.workflows.approval.ApprovalRequest;
import dev.gitopshq.workflows.approval.ApprovalResult;
import dev.gitopshq.workflows.approval.ApprovalVote;
import dev.gitopshq.workflows.approval.ApprovalWorkflow;
import dev.gitopshq.workflows.approval.ApprovalWorkflowImpl;
import dev.gitopshq.workflows.approval.RecordedVote;
import dev.gitopshq.workflows.governance.Decision;
import dev.gitopshq.workflows.governance.FreezeCheck;
import dev.gitopshq.workflows.governance.Notification;
import dev.gitopshq.workflows.governance.Requester;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
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
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every branch of the command workflow and its approval child, with time skipping. */
class CommandWorkflowTest {
  static final String ORG = "00000000-0000-0000-0000-000000000001";
  static final String CLUSTER = "00000000-0000-0000-0000-0000000000c1";
  static final Requester ALICE =
      new Requester("alice", "member", "alice@example.com", "member", List.of(), List.of());
  static final CommandTimeouts TIMEOUTS =
      new CommandTimeouts(Duration.ofHours(24).toSeconds(), 300, 60);

  TestWorkflowEnvironment env;
  WorkflowClient client;
  FakeStore store;
  FakeInbox inbox;
  FakeAgent agent;

  /** The far side of CommandActivities: records what a real store/OPA/webhook would see. */
  static final class FakeStore implements CommandActivities {
    final List<String> timeline = new CopyOnWriteArrayList<>();
    final Map<Integer, CommandStatus> seqs = new ConcurrentHashMap<>();
    final List<Notification> notifications = new CopyOnWriteArrayList<>();
    volatile String missing;
    volatile Decision decision;
    final AtomicInteger opaFailuresLeft = new AtomicInteger();
    final AtomicInteger decideCalls = new AtomicInteger();
    volatile FreezeCheck freeze =
        new FreezeCheck("freeze", 0, false, false, List.of("no freeze window holds it"));
    final List<CommandSpec> freezeQuestions = new CopyOnWriteArrayList<>();

    @Override
    public void transition(
        String orgId,
        String commandId,
        int seq,
        CommandStatus status,
        String actor,
        String detail) {
      if (seqs.putIfAbsent(seq, status) == null) {
        timeline.add(status + " by " + actor + ": " + detail);
      }
    }

    @Override
    public String missingCapability(String orgId, String clusterId, String type) {
      return missing;
    }

    @Override
    public Decision decide(CommandSpec spec) {
      decideCalls.incrementAndGet();
      if (opaFailuresLeft.getAndDecrement() > 0) {
        throw new IllegalStateException("OPA unreachable");
      }
      return decision;
    }

    @Override
    public FreezeCheck checkFreeze(CommandSpec spec) {
      freezeQuestions.add(spec);
      return freeze;
    }

    @Override
    public void notify(Notification notification) {
      notifications.add(notification);
    }

    List<String> events() {
      return notifications.stream().map(Notification::event).toList();
    }
  }

  static final class FakeInbox implements ApprovalActivities {
    final Map<String, CountDownLatch> opened = new ConcurrentHashMap<>();
    final Map<String, String> closed = new ConcurrentHashMap<>();
    final List<RecordedVote> votes = new CopyOnWriteArrayList<>();

    CountDownLatch latch(String id) {
      return opened.computeIfAbsent(id, k -> new CountDownLatch(1));
    }

    @Override
    public void open(ApprovalRequest request) {
      latch(request.approvalId()).countDown();
    }

    @Override
    public void recordVote(String orgId, String approvalId, int index, RecordedVote vote) {
      votes.add(vote);
    }

    @Override
    public void close(String orgId, String approvalId, String outcome) {
      closed.put(approvalId, outcome);
    }
  }

  static final class FakeAgent implements AgentDispatchActivities {
    final AtomicInteger executions = new AtomicInteger();
    volatile ExecutionResult result =
        new ExecutionResult(true, "deployment.apps/web scaled to 3", "");

    /** Set once the test environment runs: the fake agent reports through it. */
    volatile WorkflowClient client;

    /** An agent that never reports (cut off, or the command hangs). */
    volatile boolean silent;

    final AtomicLong deadline = new AtomicLong();

    @Override
    public ExecutionResult execute(CommandSpec spec, long deadlineEpochMillis) {
      executions.incrementAndGet();
      return result;
    }

    /** Runs the command at once and reports it as the hub's gateway does: by signal. */
    @Override
    public void park(CommandSpec spec, long deadlineEpochMillis) {
      deadline.set(deadlineEpochMillis);
      if (silent) {
        return;
      }
      executions.incrementAndGet();
      client.newWorkflowStub(CommandWorkflow.class, spec.commandId()).reported(result);
    }
  }

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance();
    Worker worker = env.newWorker(TaskQueues.HUB);
    worker.registerWorkflowImplementationTypes(
        CommandWorkflowImpl.class, ApprovalWorkflowImpl.class);
    store = new FakeStore();
    inbox = new FakeInbox();
    agent = new FakeAgent();
    worker.registerActivitiesImplementations(store, inbox, agent);
    env.start();
    client = env.getWorkflowClient();
    agent.client = client;
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  static Decision decision(String outcome, int approvers, String... reasons) {
    return new Decision(
        "approval",
        3,
        outcome,
        approvers,
        List.of("admin", "owner"),
        List.of("sre"),
        List.of(reasons));
  }

  static CommandSpec spec(String id, String breakGlass) {
    return new CommandSpec(
        ORG,
        id,
        CLUSTER,
        "prod-eu",
        "scale",
        new CommandTarget("demo", "Deployment", "web"),
        Map.of("replicas", "3"),
        "traffic spike",
        ALICE,
        breakGlass);
  }

  CommandWorkflow start(String id, String breakGlass) {
    CommandWorkflow wf =
        client.newWorkflowStub(
            CommandWorkflow.class,
            WorkflowOptions.newBuilder().setTaskQueue(TaskQueues.HUB).setWorkflowId(id).build());
    WorkflowClient.start(wf::run, new CommandRequest(spec(id, breakGlass), TIMEOUTS));
    return wf;
  }

  CommandResult result(String id) {
    return client.newUntypedWorkflowStub(id).getResult(CommandResult.class);
  }

  ApprovalWorkflow approval(String id) throws InterruptedException {
    assertThat(inbox.latch(id).await(10, TimeUnit.SECONDS)).as("approval opened").isTrue();
    return client.newWorkflowStub(ApprovalWorkflow.class, ApprovalRequest.workflowId(id));
  }

  static ApprovalVote vote(String who, String role, boolean approve, String comment) {
    return new ApprovalVote(who, who + "@example.com", role, List.of(), approve, comment);
  }

  @Test
  void autoApprovedCommandsExecuteAtOnce() {
    store.decision = decision(Decision.AUTO_APPROVE, 0, "scale is auto-approved on dev clusters");
    start("c-auto", null);

    CommandResult r = result("c-auto");
    Histories.save(client, "c-auto", "command-auto-approve");
    assertThat(r.status()).isEqualTo(CommandStatus.completed);
    assertThat(r.detail()).contains("scaled to 3");
    assertThat(r.decision().policyVersion()).isEqualTo(3);
    assertThat(agent.executions).hasValue(1);
    assertThat(store.timeline)
        .extracting(s -> s.substring(0, s.indexOf(' ')))
        .containsExactly("pending", "pending", "executing", "completed");
    assertThat(store.timeline.get(1))
        .contains("policy approval v3")
        .contains("auto-approved on dev");
  }

  @Test
  void twoDistinctEligibleApprovalsRunTheCommand() throws Exception {
    store.decision =
        decision(Decision.REQUIRE_APPROVAL, 2, "scale requires 2 approvals on prod-eu");
    start("c-two", null);
    ApprovalWorkflow approval = approval("c-two");

    approval.vote(vote("bob", "admin", true, "ok"));
    env.sleep(Duration.ofMinutes(5));
    assertThat(client.newWorkflowStub(CommandWorkflow.class, "c-two").status())
        .isEqualTo(CommandStatus.pending_approval);
    approval.vote(vote("carol", "owner", true, "lgtm"));

    CommandResult r = result("c-two");
    Histories.save(client, "c-two", "command-two-approvals");
    assertThat(r.status()).isEqualTo(CommandStatus.completed);
    assertThat(r.approval().outcome()).isEqualTo(ApprovalResult.APPROVED);
    Histories.save(client, ApprovalRequest.workflowId("c-two"), "approval-two-approvers");
    assertThat(r.approval().votes())
        .extracting(v -> v.vote().memberId())
        .containsExactly("bob", "carol");
    assertThat(agent.executions).hasValue(1);
    assertThat(store.events()).containsExactly("approval.requested");
  }

  @Test
  void theRequesterNeverCountsAsTheirOwnApprover() throws Exception {
    store.decision = decision(Decision.REQUIRE_APPROVAL, 1);
    start("c-self", null);
    ApprovalWorkflow approval = approval("c-self");

    approval.vote(new ApprovalVote("alice", "alice@example.com", "owner", List.of(), true, "me"));
    env.sleep(Duration.ofMinutes(1));
    assertThat(client.newWorkflowStub(CommandWorkflow.class, "c-self").status())
        .isEqualTo(CommandStatus.pending_approval);
    assertThat(inbox.votes)
        .singleElement()
        .satisfies(
            v -> {
              assertThat(v.counted()).isFalse();
              assertThat(v.why()).contains("requester");
            });
    assertThat(agent.executions).hasValue(0);

    approval.vote(vote("bob", "admin", true, ""));
    assertThat(result("c-self").status()).isEqualTo(CommandStatus.completed);
  }

  @Test
  void aDuplicateApproverCountsOnceAndIneligibleVotesNotAtAll() throws Exception {
    store.decision = decision(Decision.REQUIRE_APPROVAL, 2);
    start("c-dup", null);
    ApprovalWorkflow approval = approval("c-dup");

    approval.vote(vote("bob", "admin", true, "first"));
    approval.vote(vote("bob", "admin", true, "again"));
    approval.vote(vote("dave", "viewer", true, "not allowed"));
    env.sleep(Duration.ofMinutes(1));
    assertThat(client.newWorkflowStub(CommandWorkflow.class, "c-dup").status())
        .isEqualTo(CommandStatus.pending_approval);
    assertThat(inbox.votes).extracting(RecordedVote::counted).containsExactly(true, false, false);

    // A member of a named team is eligible whatever their role.
    approval.vote(
        new ApprovalVote("erin", "erin@example.com", "member", List.of("sre"), true, "on call"));
    CommandResult r = result("c-dup");
    assertThat(r.status()).isEqualTo(CommandStatus.completed);
    assertThat(agent.executions).hasValue(1);
  }

  @Test
  void oneRejectionRejectsTheCommandWithTheComment() throws Exception {
    store.decision = decision(Decision.REQUIRE_APPROVAL, 2);
    start("c-reject", null);
    approval("c-reject").vote(vote("bob", "admin", false, "not during the sale"));

    CommandResult r = result("c-reject");
    Histories.save(client, "c-reject", "command-rejected");
    assertThat(r.status()).isEqualTo(CommandStatus.rejected);
    assertThat(r.detail()).contains("not during the sale");
    assertThat(store.timeline.getLast()).startsWith("rejected by bob@example.com");
    assertThat(agent.executions).hasValue(0);
  }

  @Test
  void anUnansweredApprovalExpiresAfter24Hours() throws Exception {
    store.decision = decision(Decision.REQUIRE_APPROVAL, 1);
    start("c-expire", null);
    approval("c-expire");
    env.sleep(Duration.ofHours(23));
    assertThat(client.newWorkflowStub(CommandWorkflow.class, "c-expire").status())
        .isEqualTo(CommandStatus.pending_approval);
    env.sleep(Duration.ofHours(2));

    assertThat(result("c-expire").status()).isEqualTo(CommandStatus.expired);
    Histories.save(client, "c-expire", "command-approval-expired");
    assertThat(inbox.closed).containsEntry("c-expire", ApprovalResult.EXPIRED);
    assertThat(agent.executions).hasValue(0);
  }

  @Test
  void theRequesterCanCancelWhileItWaitsForApproval() throws Exception {
    store.decision = decision(Decision.REQUIRE_APPROVAL, 1);
    CommandWorkflow wf = start("c-cancel", null);
    approval("c-cancel");

    wf.cancel("alice@example.com");

    CommandResult r = result("c-cancel");
    Histories.save(client, "c-cancel", "command-cancelled");
    assertThat(r.status()).isEqualTo(CommandStatus.cancelled);
    assertThat(inbox.closed).containsEntry("c-cancel", ApprovalResult.CANCELLED);
    assertThat(agent.executions).hasValue(0);
  }

  @Test
  void breakGlassExecutesAtOnceNotifiesAndOpensAReview() throws Exception {
    store.decision = decision(Decision.BREAK_GLASS, 1, "break-glass allowed for admins");
    start("c-bg", "production is down and the on-call lead is unreachable");
    // The review opens as the command runs; a reviewer acknowledges it (time skipping would
    // otherwise race the review's own expiry while the test waits below).
    ApprovalWorkflow review = approval(CommandWorkflow.reviewId("c-bg"));
    review.vote(vote("bob", "admin", true, "reviewed, justified"));

    CommandResult r = result("c-bg");
    Histories.save(client, "c-bg", "command-break-glass");
    assertThat(r.status()).isEqualTo(CommandStatus.completed);
    assertThat(agent.executions).hasValue(1);
    assertThat(store.events()).containsExactly("break_glass.used");
    assertThat(store.notifications.get(0).summary()).contains("production is down");

    // The review is its own workflow: it outlives the command and ends when acknowledged.
    assertThat(
            client
                .newUntypedWorkflowStub(
                    ApprovalRequest.workflowId(CommandWorkflow.reviewId("c-bg")))
                .getResult(ApprovalResult.class)
                .outcome())
        .isEqualTo(ApprovalResult.APPROVED);
  }

  static final String YEAR_END =
      "cluster prod-eu (environment production) is frozen for restart, scale commands until"
          + " 2026-12-27T00:00:00Z: year-end freeze";

  @Test
  void aCommandAFreezeHoldsEndsFrozenBeforeAnyDecision() {
    store.freeze =
        new FreezeCheck(
            "freeze",
            2,
            true,
            true,
            List.of(YEAR_END, "the scale command is blocked until the freeze ends"));
    start("c-frozen", null);

    CommandResult r = result("c-frozen");
    Histories.save(client, "c-frozen", "command-frozen");
    assertThat(r.status()).isEqualTo(CommandStatus.frozen);
    assertThat(r.detail()).startsWith(YEAR_END);
    assertThat(store.decideCalls).as("no approval decision for a frozen command").hasValue(0);
    assertThat(agent.executions).hasValue(0);
    assertThat(store.timeline)
        .last()
        .asString()
        .startsWith("frozen by policy freeze v2: " + YEAR_END);
  }

  @Test
  void breakGlassPassesAFreezeOnTheRecordAndThenMeetsTheApprovalPolicy() throws Exception {
    store.freeze =
        new FreezeCheck(
            "freeze",
            2,
            true,
            false,
            List.of(YEAR_END, "break-glass overrides the freeze for this scale command"));
    store.decision = decision(Decision.BREAK_GLASS, 1, "break-glass allowed for admins");
    start("c-frozen-bg", "checkout is down");
    approval(CommandWorkflow.reviewId("c-frozen-bg"))
        .vote(vote("bob", "admin", true, "reviewed, justified"));

    CommandResult r = result("c-frozen-bg");
    Histories.save(client, "c-frozen-bg", "command-frozen-break-glass");
    assertThat(r.status()).isEqualTo(CommandStatus.completed);
    assertThat(store.freezeQuestions.get(0).breakGlassJustification())
        .isEqualTo("checkout is down");
    assertThat(store.timeline)
        .anySatisfy(
            e ->
                assertThat(e)
                    .startsWith(
                        "pending by policy freeze v2: frozen, passing under break-glass: "));
    assertThat(store.decideCalls).hasValue(1);
    assertThat(agent.executions).hasValue(1);
  }

  @Test
  void breakGlassThePolicyDoesNotAllowIsRejectedWithTheReason() {
    store.decision = decision(Decision.DENY, 0, "break-glass is not allowed on cluster prod-eu");
    start("c-bg-deny", "production is down and the on-call lead is unreachable");

    CommandResult r = result("c-bg-deny");
    assertThat(r.status()).isEqualTo(CommandStatus.rejected);
    assertThat(r.detail()).contains("break-glass is not allowed");
    assertThat(agent.executions).hasValue(0);
    assertThat(inbox.opened).isEmpty();
  }

  @Test
  void aTypeTheAgentCannotRunIsRejectedBeforeAnyDecision() {
    store.missing = "kubernetes.scale";
    store.decision = decision(Decision.AUTO_APPROVE, 0);
    start("c-cap", null);

    CommandResult r = result("c-cap");
    Histories.save(client, "c-cap", "command-capability-missing");
    assertThat(r.status()).isEqualTo(CommandStatus.rejected);
    assertThat(r.detail()).contains("kubernetes.scale");
    assertThat(store.decideCalls).hasValue(0);
    assertThat(agent.executions).hasValue(0);
  }

  @Test
  void whileOpaIsDownNothingExecutesAndTheCommandRunsOnceItIsBack() {
    store.opaFailuresLeft.set(5);
    store.decision = decision(Decision.AUTO_APPROVE, 0);
    start("c-opa", null);

    env.sleep(Duration.ofSeconds(20));
    assertThat(agent.executions).hasValue(0);
    assertThat(client.newWorkflowStub(CommandWorkflow.class, "c-opa").status())
        .isEqualTo(CommandStatus.pending);

    CommandResult r = result("c-opa");
    Histories.save(client, "c-opa", "command-opa-down-then-up");
    assertThat(r.status()).isEqualTo(CommandStatus.completed);
    assertThat(store.decideCalls.get()).isGreaterThanOrEqualTo(6);
    assertThat(agent.executions).hasValue(1);
  }

  @Test
  void aFailedExecutionIsReportedAndNotified() {
    store.decision = decision(Decision.AUTO_APPROVE, 0);
    agent.result = new ExecutionResult(false, "", "deployments.apps \"web\" not found");
    start("c-fail", null);

    CommandResult r = result("c-fail");
    Histories.save(client, "c-fail", "command-failed");
    assertThat(r.status()).isEqualTo(CommandStatus.failed);
    assertThat(r.detail()).contains("not found");
    assertThat(store.events()).containsExactly("command.failed");
  }

  @Test
  void anAgentThatNeverReportsFailsTheCommandAfterItsDeadlineAndALateReportChangesNothing() {
    store.decision = decision(Decision.AUTO_APPROVE, 0);
    agent.silent = true;
    long startedAt = env.currentTimeMillis();
    start("c-silent", null);

    CommandResult r = result("c-silent");
    assertThat(r.status()).isEqualTo(CommandStatus.failed);
    long waitSeconds = TIMEOUTS.agentWaitSeconds() + TIMEOUTS.executionSeconds();
    assertThat(r.detail())
        .isEqualTo(
            "the agent did not report within "
                + waitSeconds
                + " s (disconnected, or the command is still running)");
    // The agent was told the deadline; the workflow waited past it by the report margin only.
    assertThat(agent.deadline.get() - startedAt).isBetween(0L, waitSeconds * 1000 + 1000);
    assertThat(env.currentTimeMillis() - startedAt)
        .isGreaterThanOrEqualTo(waitSeconds * 1000 + CommandWorkflowImpl.REPORT_MARGIN.toMillis());
    assertThat(store.events()).containsExactly("command.failed");
    assertThat(store.timeline.get(store.timeline.size() - 1)).startsWith("failed ");

    // A report that arrives after the workflow closed is refused by Temporal, not recorded.
    CommandWorkflow closed = client.newWorkflowStub(CommandWorkflow.class, "c-silent");
    assertThatThrownBy(() -> closed.reported(new ExecutionResult(true, "late", "")))
        .isInstanceOf(WorkflowNotFoundException.class);
    assertThat(store.timeline.get(store.timeline.size() - 1)).startsWith("failed ");
  }
}
