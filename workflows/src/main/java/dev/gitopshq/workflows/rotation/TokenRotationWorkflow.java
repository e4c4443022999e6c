package dev.gitopshq.workflows.rotation;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/** See the package documentation. */
@WorkflowInterface
public interface TokenRotationWorkflow {
  @WorkflowMethod
  RotationOutcome rotate(RotationRequest request);

  /** The agent persisted (or could not persist) the new token. */
  @SignalMethod
  void acknowledged(TokenAck ack);

  @QueryMethod
  String phase();
}
