package dev.gitopshq.workflows.command;

import io.temporal.activity.ActivityInterface;

/**
 * Hands a command to the cluster's agent through the hub's gateway; the command waits, parked in
 * PostgreSQL, until an agent stream carries it, so a hub restart in between loses nothing.
 * Whichever hub replica receives the agent's report hands it back to the workflow: as the {@link
 * CommandWorkflow#reported} signal ({@link #park}, version 2), or by completing {@link #execute}
 * (earlier versions).
 */
@ActivityInterface
public interface AgentDispatchActivities {

  /**
   * Queues the command for the agent and waits for its report.
   *
   * @param deadlineEpochMillis after this the agent must not start it
   */
  ExecutionResult execute(CommandSpec spec, long deadlineEpochMillis);

  /**
   * Parks the command for the agent, to be reported by signal; run as a local activity, in the
   * worker that holds the workflow task, so the command is on its way before that task completes.
   * Repeating it (a workflow task retried after a crash) changes nothing: a command already parked,
   * or already reported, stays as it is.
   *
   * @param deadlineEpochMillis after this the agent must not start it
   */
  void park(CommandSpec spec, long deadlineEpochMillis);
}
