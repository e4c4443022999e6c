package dev.gitopshq.workflows.generation;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/** Generates one project revision's delivery; see the package documentation. */
@WorkflowInterface
public interface DeliveryGenerationWorkflow {
  @WorkflowMethod
  GenerationResult run(GenerationRequest request);
}
