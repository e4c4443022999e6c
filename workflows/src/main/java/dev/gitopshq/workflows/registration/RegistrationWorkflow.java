package dev.gitopshq.workflows.registration;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/** Follows one registration token from issuance to consumption, supersession or expiry. */
@WorkflowInterface
public interface RegistrationWorkflow {

  /** The stable workflow id for a registration token: a second start finds the running one. */
  static String workflowId(String tokenId) {
    return "registration-" + tokenId;
  }

  /**
   * Runs until the token is consumed, superseded or expired, and says which. A registration that
   * requires hub acceptance runs on until an admin decides (or {@code ACCEPTANCE_WAIT} passes).
   */
  @WorkflowMethod
  RegistrationOutcome run(RegistrationRequest request);

  /** The gateway consumed the token and issued an agent token (identified by id, never value). */
  @SignalMethod
  void agentRegistered(AgentRegistered event);

  /** An admin accepted or rejected the agent that registered with this token. */
  @SignalMethod
  void decided(AcceptanceDecision decision);

  /** A newer join token replaced this one; it no longer works. */
  @SignalMethod
  void superseded(String byTokenId);

  /** Where the token stands now. */
  @QueryMethod
  RegistrationState state();
}
