package dev.gitopshq.workflows.adapter;

import io.temporal.activity.ActivityInterface;

/** Activity types are prefixed {@code AdapterWiring}. */
@ActivityInterface(namePrefix = "AdapterWiring")
public interface AdapterWiringActivities {
  /**
   * Computes every binding of the cluster delivered through Flux or Argo CD (from the deploy
   * branches' contents and the projects' fences), issues the deploy tokens its adapter lacks, sends
   * the whole set to the cluster's agent and records what it reported, with an audit entry naming
   * {@code cause} when anything changed. Tokens travel to the agent from here and nowhere else.
   * Throws while no replica reachable from here holds the agent's stream, so Temporal retries.
   */
  WiringOutcome wireCluster(String orgId, String clusterId, String cause);
}
