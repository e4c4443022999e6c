package dev.gitopshq.workflows.rotation;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Started by a cluster's Temporal Schedule: gives the rotation a fresh id and runs it as the child
 * {@code token-rotation-{rotationId}}, so the gateway can signal it like a manual rotation.
 */
@WorkflowInterface
public interface ScheduledRotationWorkflow {
  @WorkflowMethod
  RotationOutcome run(ScheduledRotation request);
}
