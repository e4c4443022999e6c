package dev.gitopshq.workflows;

/** Names of the Temporal task queues the hub's workers poll. */
public final class TaskQueues {
  /** The queue every hub replica's worker serves for the hub's own workflows and activities. */
  public static final String HUB = "gitopshq-hub";

  /**
   * The queue a replica's worker serves for work that must run where an agent's stream is held
   * (token rotation, credential sync).
   */
  public static String replica(String replicaId) {
    return "gitopshq-hub-replica-" + replicaId;
  }

  private TaskQueues() {}
}
