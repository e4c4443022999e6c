package dev.gitopshq.workflows.rotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.workflows.Histories;
import dev.gitopshq.workflows.TaskQueues;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Token rotation on the Temporal test server with time skipping. */
class TokenRotationWorkflowTest {
  static final String REPLICA = "r1";
  TestWorkflowEnvironment env;
  WorkflowClient client;
  Store store;

  /** The store and the agent's side, as the workflow sees them. */
  static final class Store implements RotationActivities, RotationDeliveryActivities {
    volatile String holder = REPLICA;
    final List<String> events = new CopyOnWriteArrayList<>();
    TestWorkflowEnvironment env;

    @Override
    public String streamHolder(String orgId, String clusterId) {
      return holder;
    }

    @Override
    public String issueAndSend(String orgId, String clusterId, String rotationId) {
      events.add("issued");
      return "new-token-id";
    }

    @Override
    public void activate(
        String orgId, String clusterId, String rotationId, String newTokenId, long graceSeconds) {
      events.add("activated@" + env.currentTimeMillis());
    }

    @Override
    public List<String> revokeOlder(
        String orgId, String clusterId, String rotationId, String newTokenId) {
      events.add("revoked-old@" + env.currentTimeMillis());
      return List.of("old");
    }

    @Override
    public void abandon(
        String orgId, String clusterId, String rotationId, String newTokenId, String reason) {
      events.add("abandoned " + newTokenId + ": " + reason);
    }
  }

  @BeforeEach
  void setUp() {
    env = TestWorkflowEnvironment.newInstance();
    store = new Store();
    store.env = env;
    Worker hub = env.newWorker(TaskQueues.HUB);
    hub.registerWorkflowImplementationTypes(
        TokenRotationWorkflowImpl.class, ScheduledRotationWorkflowImpl.class);
    hub.registerActivitiesImplementations((RotationActivities) store);
    Worker replica = env.newWorker(RotationDeliveryActivities.queueOf(REPLICA));
    replica.registerActivitiesImplementations((RotationDeliveryActivities) store);
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  TokenRotationWorkflow start(String id) {
    TokenRotationWorkflow wf =
        client.newWorkflowStub(
            TokenRotationWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.HUB)
                .setWorkflowId(RotationRequest.workflowId(id))
                .build());
    WorkflowClient.start(
        wf::rotate, new RotationRequest("org", "c1", id, "admin@example.com", 120, 900));
    return wf;
  }

  RotationOutcome result(String id) {
    return client
        .newUntypedWorkflowStub(RotationRequest.workflowId(id))
        .getResult(RotationOutcome.class);
  }

  void awaitPhase(TokenRotationWorkflow wf, String phase) {
    for (int i = 0; i < 200 && !phase.equals(wf.phase()); i++) {
      env.sleep(Duration.ofMillis(50));
    }
    assertThat(wf.phase()).isEqualTo(phase);
  }

  @Test
  void theOldTokenIsRevokedExactlyWhenTheGracePeriodEnds() {
    TokenRotationWorkflow wf = start("rot-1");
    awaitPhase(wf, "awaiting-ack");
    wf.acknowledged(new TokenAck("rot-1", true, ""));

    RotationOutcome outcome = result("rot-1");
    assertThat(outcome.state()).isEqualTo(RotationOutcome.ROTATED);
    assertThat(outcome.newTokenId()).isEqualTo("new-token-id");
    long activated = Long.parseLong(store.events.get(1).substring("activated@".length()));
    long revoked = Long.parseLong(store.events.get(2).substring("revoked-old@".length()));
    // The grace timer starts once the activation's result is recorded: 900 s after it, plus the
    // real milliseconds the test server took in between (seconds were flaky across a boundary).
    assertThat(revoked - activated).isBetween(900_000L, 905_000L);
    Histories.save(client, RotationRequest.workflowId("rot-1"), "token-rotation-rotated");
  }

  @Test
  void withoutAnAcknowledgementTheNewTokenIsRevokedAndTheOldStays() {
    start("rot-2");
    RotationOutcome outcome = result("rot-2");
    assertThat(outcome.state()).isEqualTo(RotationOutcome.NOT_ACKNOWLEDGED);
    assertThat(store.events)
        .containsExactly(
            "issued", "abandoned new-token-id: the agent did not acknowledge within 120 s");
    Histories.save(client, RotationRequest.workflowId("rot-2"), "token-rotation-not-acknowledged");
  }

  @Test
  void anAgentThatCannotPersistTheTokenKeepsTheOldOne() {
    TokenRotationWorkflow wf = start("rot-3");
    awaitPhase(wf, "awaiting-ack");
    wf.acknowledged(
        new TokenAck("rot-3", false, "secrets \"gitopshq-agent-identity\" is forbidden"));
    RotationOutcome outcome = result("rot-3");
    assertThat(outcome.state()).isEqualTo(RotationOutcome.REFUSED);
    assertThat(store.events.getLast()).contains("forbidden");
  }

  @Test
  void aScheduledRunRotatesUnderAFreshIdTheGatewayCanSignal() {
    String scheduled = "token-rotation-schedule-c1-run";
    ScheduledRotationWorkflow wf =
        client.newWorkflowStub(
            ScheduledRotationWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.HUB)
                .setWorkflowId(scheduled)
                .build());
    WorkflowClient.start(wf::run, new ScheduledRotation("org", "c1", 120, 900));
    // The gateway knows the rotation id from the agent's answer; here it comes from the child's id.
    String childId = null;
    for (int i = 0; i < 200 && childId == null; i++) {
      env.sleep(Duration.ofMillis(50));
      childId = store.events.isEmpty() ? null : findChild(scheduled);
    }
    assertThat(childId).startsWith("token-rotation-");
    client
        .newWorkflowStub(TokenRotationWorkflow.class, childId)
        .acknowledged(new TokenAck(childId.substring("token-rotation-".length()), true, ""));
    assertThat(client.newUntypedWorkflowStub(scheduled).getResult(RotationOutcome.class).state())
        .isEqualTo(RotationOutcome.ROTATED);
  }

  String findChild(String parentId) {
    return client.fetchHistory(parentId).getEvents().stream()
        .filter(e -> e.hasStartChildWorkflowExecutionInitiatedEventAttributes())
        .map(e -> e.getStartChildWorkflowExecutionInitiatedEventAttributes().getWorkflowId())
        .findFirst()
        .orElse(null);
  }

  @Test
  void aDisconnectedAgentIsNotRotated() {
    store.holder = null;
    start("rot-4");
    assertThat(result("rot-4").state()).isEqualTo(RotationOutcome.AGENT_NOT_CONNECTED);
    assertThat(store.events).singleElement().asString().startsWith("abandoned null");
  }

  @Test
  void aScheduledRotationRunsTheRotationAsItsChildAndReportsItsOutcome() {
    ScheduledRotationWorkflow scheduled =
        client.newWorkflowStub(
            ScheduledRotationWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.HUB)
                .setWorkflowId("scheduled-rotation-c1")
                .build());
    // Nobody acknowledges: the child revokes its new token after the 120 s and the schedule's
    // run reports what the child decided.
    RotationOutcome outcome = scheduled.run(new ScheduledRotation("org", "c1", 120, 900));
    assertThat(outcome.state()).isEqualTo(RotationOutcome.NOT_ACKNOWLEDGED);
    assertThat(store.events).first().isEqualTo("issued");
    assertThat(store.events.get(1)).startsWith("abandoned new-token-id");
    Histories.save(client, "scheduled-rotation-c1", "token-rotation-scheduled");
  }
}
