package dev.gitopshq.workflows;

/** Names of the Temporal task queues the hub's workers poll. */
public final class TaskQueues {
  /** The queue every hub replica's worker serves for the hub's own workflows and activities. */
  public static final String HUB = "gitopshq-hub";

  private TaskQueues() {}
}
