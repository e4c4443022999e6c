package dev.gitopshq.workflows.agentwatch;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/** See the package documentation. */
@WorkflowInterface
public interface AgentWatchWorkflow {
  /** Returns true when it raised the notification. */
  @WorkflowMethod
  boolean watch(AgentWatchRequest request);
}
