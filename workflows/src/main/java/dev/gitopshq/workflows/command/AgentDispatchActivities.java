package dev.gitopshq.workflows.command;

import io.temporal.activity.ActivityInterface;

/**
 * Hands a command to the cluster's agent through the hub's gateway. The activity does not return by
 * itself: it stores its task token with the queued command, and whichever hub replica receives the
 * agent's report completes it, so a hub restart in between loses nothing.
 */
@ActivityInterface
public interface AgentDispatchActivities {

  /**
   * Queues the command for the agent and waits for its report.
   *
   * @param deadlineEpochMillis after this the agent must not start it
   */
  ExecutionResult execute(CommandSpec spec, long deadlineEpochMillis);
}
