package dev.gitopshq.workflows.registration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.workflows.Histories;
import dev.gitopshq.workflows.TaskQueues;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every branch of the registration workflow on the Temporal test server, with time skipping. */
class RegistrationWorkflowTest {

  private static final String ORG = "00000000-0000-0000-0000-000000000001";
  private static final String CLUSTER = "00000000-0000-0000-0000-0000000000c1";
  private static final Duration ONE_HOUR = Duration.ofHours(1);

  private TestWorkflowEnvironment env;
  private WorkflowClient client;
  private FakeStore store;

  /** The far side of the activities: a token row with a status, like the real table. */
  static final class FakeStore implements RegistrationActivities {
    volatile boolean exists = true;
    volatile RegistrationState tokenState = RegistrationState.WAITING;
    final AtomicInteger expireCalls = new AtomicInteger();

    final AtomicInteger confirmCalls = new AtomicInteger();
    volatile int invisibleFor;

    @Override
    public void confirmIssued(String orgId, String clusterId, String tokenId) {
      if (confirmCalls.incrementAndGet() <= invisibleFor || !exists) {
        throw new IllegalStateException("token " + tokenId + " is not visible yet");
      }
    }

    final AtomicInteger joinCalls = new AtomicInteger();

    @Override
    public void joinSelectingEnvironments(String orgId, String clusterId, String tokenId) {
      joinCalls.incrementAndGet();
    }

    @Override
    public RegistrationState expireToken(String orgId, String clusterId, String tokenId) {
      expireCalls.incrementAndGet();
      if (tokenState == RegistrationState.WAITING) {
        tokenState = RegistrationState.EXPIRED;
      }
      return tokenState;
    }
  }

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance();
    Worker worker = env.newWorker(TaskQueues.HUB);
    worker.registerWorkflowImplementationTypes(RegistrationWorkflowImpl.class);
    store = new FakeStore();
    worker.registerActivitiesImplementations(store);
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private RegistrationWorkflow start(String tokenId) {
    RegistrationWorkflow wf =
        client.newWorkflowStub(
            RegistrationWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.HUB)
                .setWorkflowId(RegistrationWorkflow.workflowId(tokenId))
                .build());
    long expiresAt = env.currentTimeMillis() + ONE_HOUR.toMillis();
    WorkflowClient.start(wf::run, new RegistrationRequest(ORG, CLUSTER, tokenId, expiresAt));
    return wf;
  }

  private RegistrationOutcome result(String tokenId) {
    return client
        .newUntypedWorkflowStub(RegistrationWorkflow.workflowId(tokenId))
        .getResult(RegistrationOutcome.class);
  }

  @Test
  void expiresAfterOneHour() {
    RegistrationWorkflow wf = start("t-expire");

    env.sleep(Duration.ofMinutes(59));
    assertThat(wf.state()).isEqualTo(RegistrationState.WAITING);
    assertThat(store.expireCalls).hasValue(0);

    env.sleep(Duration.ofMinutes(2));
    RegistrationOutcome outcome = result("t-expire");
    Histories.save(client, RegistrationWorkflow.workflowId("t-expire"), "registration-expired");
    assertThat(outcome.state()).isEqualTo(RegistrationState.EXPIRED);
    assertThat(store.tokenState).isEqualTo(RegistrationState.EXPIRED);
    assertThat(store.expireCalls).hasValue(1);
    assertThat(store.joinCalls).as("an unregistered cluster joins nothing").hasValue(0);
  }

  @Test
  void completesWhenTheAgentRegistersBeforeExpiry() {
    RegistrationWorkflow wf = start("t-register");
    env.sleep(Duration.ofMinutes(10));

    wf.agentRegistered(new AgentRegistered("agent-token-1", "0.1.0", List.of("observe")));

    RegistrationOutcome outcome = result("t-register");
    Histories.save(
        client, RegistrationWorkflow.workflowId("t-register"), "registration-v1-registered");
    assertThat(outcome.state()).isEqualTo(RegistrationState.REGISTERED);
    assertThat(outcome.agentTokenId()).isEqualTo("agent-token-1");
    assertThat(store.expireCalls).as("a used token is never expired").hasValue(0);
    assertThat(store.joinCalls).as("the cluster joins the environments selecting it").hasValue(1);
  }

  @Test
  void anAgentThatRequiresAcceptanceWaitsForTheAdminsDecision() {
    RegistrationWorkflow wf = start("t-accept");
    wf.agentRegistered(new AgentRegistered("agent-token-3", "0.1.0", List.of("observe"), true));

    env.sleep(Duration.ofDays(3));
    assertThat(wf.state()).isEqualTo(RegistrationState.PENDING_ACCEPTANCE);
    assertThat(store.expireCalls).as("a used token is never expired").hasValue(0);

    wf.decided(new AcceptanceDecision(true, "Ada Admin"));
    RegistrationOutcome outcome = result("t-accept");
    Histories.save(client, RegistrationWorkflow.workflowId("t-accept"), "registration-accepted");
    assertThat(outcome.state()).isEqualTo(RegistrationState.ACCEPTED);
    assertThat(outcome.agentTokenId()).isEqualTo("agent-token-3");
  }

  @Test
  void aRejectedAgentEndsAsRejected() {
    RegistrationWorkflow wf = start("t-reject");
    wf.agentRegistered(new AgentRegistered("agent-token-4", "0.1.0", List.of(), true));
    wf.decided(new AcceptanceDecision(false, "Ada Admin"));

    assertThat(result("t-reject").state()).isEqualTo(RegistrationState.REJECTED);
  }

  @Test
  void anUndecidedAgentStopsBeingFollowedAfterTheAcceptanceWait() {
    RegistrationWorkflow wf = start("t-undecided");
    wf.agentRegistered(new AgentRegistered("agent-token-5", "0.1.0", List.of(), true));

    env.sleep(RegistrationWorkflowImpl.ACCEPTANCE_WAIT.plusHours(1));
    assertThat(result("t-undecided").state()).isEqualTo(RegistrationState.PENDING_ACCEPTANCE);
  }

  @Test
  void endsWhenANewJoinTokenSupersedesIt() {
    RegistrationWorkflow wf = start("t-old");
    wf.superseded("t-new");

    assertThat(result("t-old").state()).isEqualTo(RegistrationState.SUPERSEDED);
    assertThat(store.expireCalls).hasValue(0);
    assertThat(store.joinCalls).hasValue(0);
  }

  @Test
  void endsAtOnceWhenTheIssuingRequestWasRolledBack() {
    store.exists = false;
    start("t-rolled-back");

    assertThat(result("t-rolled-back").state()).isEqualTo(RegistrationState.ABANDONED);
    assertThat(store.expireCalls).hasValue(0);
  }

  @Test
  void waitsForTheIssuingTransactionToCommit() {
    // The workflow starts inside the REST transaction and can run before the commit.
    store.invisibleFor = 3;
    RegistrationWorkflow wf = start("t-commit");
    wf.agentRegistered(new AgentRegistered("agent-token-2", "0.1.0", List.of()));

    assertThat(result("t-commit").state()).isEqualTo(RegistrationState.REGISTERED);
    assertThat(store.confirmCalls).hasValue(4);
  }

  @Test
  void aTokenConsumedAtTheDeadlineCountsAsRegistered() {
    // The agent won the race in PostgreSQL just before the timer fired, and its signal is late.
    store.tokenState = RegistrationState.REGISTERED;
    RegistrationWorkflow wf = start("t-race");
    env.sleep(ONE_HOUR.plusSeconds(1));
    wf.agentRegistered(new AgentRegistered("agent-token-9", "0.1.0", List.of()));

    RegistrationOutcome outcome = result("t-race");
    assertThat(outcome.state()).isEqualTo(RegistrationState.REGISTERED);
    assertThat(outcome.agentTokenId()).isEqualTo("agent-token-9");
    assertThat(store.joinCalls).hasValue(1);
  }

  @Test
  void aSecondStartWithTheSameTokenFindsTheRunningWorkflow() {
    start("t-dup");
    WorkflowStub second =
        client.newUntypedWorkflowStub(
            "RegistrationWorkflow",
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.HUB)
                .setWorkflowId(RegistrationWorkflow.workflowId("t-dup"))
                .build());
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> second.start(new RegistrationRequest(ORG, CLUSTER, "t-dup", 0)))
        .isInstanceOf(io.temporal.client.WorkflowExecutionAlreadyStarted.class);
  }
}
