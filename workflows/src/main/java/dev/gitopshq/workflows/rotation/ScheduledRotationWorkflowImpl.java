package dev.gitopshq.workflows.rotation;

import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Workflow;

/** See {@link ScheduledRotationWorkflow}. */
public class ScheduledRotationWorkflowImpl implements ScheduledRotationWorkflow {
  @Override
  public RotationOutcome run(ScheduledRotation r) {
    String rotationId = Workflow.randomUUID().toString();
    TokenRotationWorkflow child =
        Workflow.newChildWorkflowStub(
            TokenRotationWorkflow.class,
            ChildWorkflowOptions.newBuilder()
                .setWorkflowId(RotationRequest.workflowId(rotationId))
                .build());
    return child.rotate(
        new RotationRequest(
            r.orgId(),
            r.clusterId(),
            rotationId,
            "schedule",
            r.ackTimeoutSeconds(),
            r.graceSeconds()));
  }
}
