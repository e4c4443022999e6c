package dev.gitopshq.workflows.credential;

import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Syncs one cluster's credentials: a policy decision for every target, then one send by the replica
 * holding the agent's stream; again for every change signalled while it runs, so a burst of changes
 * (an assignment of many namespaces, an agent reconnecting during a rotation) syncs once or twice,
 * not once each.
 */
@WorkflowInterface
public interface CredentialSyncWorkflow {
  @WorkflowMethod
  SyncOutcome sync(CredentialSyncRequest request);

  /** Another change arrived while this sync ran: sync once more when the round ends. */
  @SignalMethod
  void again(SyncCause cause);
}
