package dev.gitopshq.workflows.registration;

import dev.gitopshq.workflows.StoreActivities;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * See {@link RegistrationWorkflow}. Deterministic: time and waiting go through {@link Workflow}.
 */
public class RegistrationWorkflowImpl implements RegistrationWorkflow {

  private static final Logger log = Workflow.getLogger(RegistrationWorkflowImpl.class);

  /**
   * How long to wait for the gateway's signal when the store says the token was consumed but the
   * signal has not arrived (the gateway signals after its commit, so the two can cross).
   */
  static final Duration LATE_SIGNAL_WAIT = Duration.ofMinutes(5);

  /**
   * How long a registration that requires acceptance waits for an admin here. After it the store
   * still holds the cluster as pending and a decision still works; only this record stops waiting.
   */
  static final Duration ACCEPTANCE_WAIT = Duration.ofDays(90);

  /** The change that added hub acceptance (Workflow.getVersion). */
  static final String ACCEPTANCE_CHANGE = "hub-acceptance";

  /** How long the issuing transaction has to commit before the workflow gives up on it. */
  static final Duration CONFIRM_WINDOW = Duration.ofMinutes(2);

  /** The change id and version of joining selecting environments on registration. */
  static final String JOIN_SELECTING_ENVIRONMENTS = "join-selecting-environments";

  static final int JOINS_ON_REGISTER = 1;

  private final RegistrationActivities store =
      Workflow.newActivityStub(RegistrationActivities.class, StoreActivities.options());

  /** Retries quickly for a short while: long enough for any commit, short for a rollback. */
  private final RegistrationActivities confirm =
      Workflow.newActivityStub(
          RegistrationActivities.class,
          ActivityOptions.newBuilder()
              .setStartToCloseTimeout(Duration.ofSeconds(10))
              .setScheduleToCloseTimeout(CONFIRM_WINDOW)
              .setRetryOptions(
                  RetryOptions.newBuilder()
                      .setInitialInterval(Duration.ofMillis(200))
                      .setBackoffCoefficient(2.0)
                      .setMaximumInterval(Duration.ofSeconds(10))
                      .build())
              .build());

  private RegistrationState state = RegistrationState.WAITING;
  private AgentRegistered registration;
  private String supersededBy;
  private AcceptanceDecision decision;

  @Override
  public RegistrationOutcome run(RegistrationRequest request) {
    try {
      confirm.confirmIssued(request.orgId(), request.clusterId(), request.tokenId());
    } catch (ActivityFailure e) {
      state = RegistrationState.ABANDONED;
      return outcome();
    }

    Duration untilExpiry =
        Duration.ofMillis(
            Math.max(0, request.expiresAtEpochMillis() - Workflow.currentTimeMillis()));
    boolean settled =
        Workflow.await(untilExpiry, () -> registration != null || supersededBy != null);
    if (settled) {
      state = registration != null ? RegistrationState.REGISTERED : RegistrationState.SUPERSEDED;
      if (registration != null) {
        awaitDecision();
      }
      joinSelectingEnvironments(request);
      return outcome();
    }

    // The timer fired. The store is the authority on single use: it expires the token only if it
    // is still unused, in one statement.
    RegistrationState found =
        store.expireToken(request.orgId(), request.clusterId(), request.tokenId());
    if (found == RegistrationState.REGISTERED && registration == null) {
      Workflow.await(LATE_SIGNAL_WAIT, () -> registration != null);
    }
    state = found;
    if (found == RegistrationState.REGISTERED && registration != null) {
      awaitDecision();
    }
    log.info("registration token {} ended as {}", request.tokenId(), state);
    joinSelectingEnvironments(request);
    return outcome();
  }

  /**
   * Hub acceptance: a registration that requires it waits for the admin's decision. Histories
   * recorded before the change replay without it.
   */
  private void awaitDecision() {
    int version = Workflow.getVersion(ACCEPTANCE_CHANGE, Workflow.DEFAULT_VERSION, 1);
    if (version == Workflow.DEFAULT_VERSION || !registration.acceptanceRequired()) {
      return;
    }
    state = RegistrationState.PENDING_ACCEPTANCE;
    if (Workflow.await(ACCEPTANCE_WAIT, () -> decision != null)) {
      state = decision.accepted() ? RegistrationState.ACCEPTED : RegistrationState.REJECTED;
    }
  }

  @Override
  public void decided(AcceptanceDecision event) {
    if (decision == null) {
      decision = event;
    }
  }

  /**
   * A registered cluster (accepted, where hub acceptance is required) joins the project
   * environments whose cluster selectors match it. Added after histories were recorded: executions
   * from before skip it on replay.
   */
  private void joinSelectingEnvironments(RegistrationRequest request) {
    if (state != RegistrationState.REGISTERED && state != RegistrationState.ACCEPTED) {
      return;
    }
    int version =
        Workflow.getVersion(
            JOIN_SELECTING_ENVIRONMENTS, Workflow.DEFAULT_VERSION, JOINS_ON_REGISTER);
    if (version >= JOINS_ON_REGISTER) {
      store.joinSelectingEnvironments(request.orgId(), request.clusterId(), request.tokenId());
    }
  }

  @Override
  public void agentRegistered(AgentRegistered event) {
    if (registration == null) {
      registration = event;
    }
  }

  @Override
  public void superseded(String byTokenId) {
    if (supersededBy == null) {
      supersededBy = byTokenId;
    }
  }

  @Override
  public RegistrationState state() {
    return state;
  }

  private RegistrationOutcome outcome() {
    return new RegistrationOutcome(
        state, registration == null ? null : registration.agentTokenId());
  }
}
