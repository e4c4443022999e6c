package dev.gitopshq.workflows.release;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/** See the package documentation. */
@WorkflowInterface
public interface ReleaseWorkflow {
  @WorkflowMethod
  DeploymentResult run(DeploymentRequest request);

  /** Withdraws the deployment while it waits for a decision or approvers. */
  @SignalMethod
  void cancel(String by);

  @QueryMethod
  DeploymentStatus status();
}
