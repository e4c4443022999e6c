package dev.gitopshq.workflows.rotation;

import dev.gitopshq.workflows.StoreActivities;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/** See {@link TokenRotationWorkflow}. */
public class TokenRotationWorkflowImpl implements TokenRotationWorkflow {
  private final RotationActivities store =
      Workflow.newActivityStub(RotationActivities.class, StoreActivities.options());

  private TokenAck ack;
  private String phase = "starting";

  @Override
  public RotationOutcome rotate(RotationRequest r) {
    String holder = store.streamHolder(r.orgId(), r.clusterId());
    if (holder == null) {
      return fail(r, null, RotationOutcome.AGENT_NOT_CONNECTED, "the agent is not connected");
    }
    RotationDeliveryActivities delivery =
        Workflow.newActivityStub(
            RotationDeliveryActivities.class,
            ActivityOptions.newBuilder()
                .setTaskQueue(RotationDeliveryActivities.queueOf(holder))
                // The holding replica must take it quickly; if it died, the rotation fails.
                .setScheduleToStartTimeout(Duration.ofSeconds(30))
                .setStartToCloseTimeout(Duration.ofSeconds(30))
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(3).build())
                .build());
    String newTokenId;
    try {
      phase = "delivering";
      newTokenId = delivery.issueAndSend(r.orgId(), r.clusterId(), r.rotationId());
    } catch (ActivityFailure e) {
      return fail(
          r,
          null,
          RotationOutcome.AGENT_NOT_CONNECTED,
          "the new token could not be delivered to the agent");
    }

    phase = "awaiting-ack";
    Workflow.await(Duration.ofSeconds(r.ackTimeoutSeconds()), () -> ack != null);
    if (ack == null) {
      return fail(
          r,
          newTokenId,
          RotationOutcome.NOT_ACKNOWLEDGED,
          "the agent did not acknowledge within " + r.ackTimeoutSeconds() + " s");
    }
    if (!ack.persisted()) {
      return fail(
          r,
          newTokenId,
          RotationOutcome.REFUSED,
          "the agent could not persist the new token: " + ack.error());
    }

    phase = "grace";
    store.activate(r.orgId(), r.clusterId(), r.rotationId(), newTokenId, r.graceSeconds());
    Workflow.sleep(Duration.ofSeconds(r.graceSeconds()));
    phase = "revoking";
    store.revokeOlder(r.orgId(), r.clusterId(), r.rotationId(), newTokenId);
    phase = RotationOutcome.ROTATED;
    return new RotationOutcome(RotationOutcome.ROTATED, newTokenId, "rotated");
  }

  private RotationOutcome fail(RotationRequest r, String newTokenId, String state, String reason) {
    phase = state;
    store.abandon(r.orgId(), r.clusterId(), r.rotationId(), newTokenId, reason);
    return new RotationOutcome(state, newTokenId, reason);
  }

  @Override
  public void acknowledged(TokenAck a) {
    if (ack == null) {
      ack = a;
    }
  }

  @Override
  public String phase() {
    return phase;
  }
}
