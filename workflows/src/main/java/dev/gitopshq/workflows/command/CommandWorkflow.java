package dev.gitopshq.workflows.command;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/** One command on one cluster; see the package documentation. The workflow id is the command id. */
@WorkflowInterface
public interface CommandWorkflow {
  @WorkflowMethod
  CommandResult run(CommandRequest request);

  /** Withdraws the command if it has not started executing; ignored afterwards. */
  @SignalMethod
  void cancel(String by);

  /**
   * The agent's report, sent by the hub replica that received it (from version 2 on, where a local
   * activity parks the command instead of an activity waiting for it). The first report counts.
   */
  @SignalMethod
  void reported(ExecutionResult result);

  @QueryMethod
  CommandStatus status();

  /** The approval's id for a command (one approval per command). */
  static String approvalId(String commandId) {
    return commandId;
  }

  /** The break-glass review's id for a command. */
  static String reviewId(String commandId) {
    return commandId + "-review";
  }
}
