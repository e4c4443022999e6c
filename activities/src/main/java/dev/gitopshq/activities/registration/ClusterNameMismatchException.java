package dev.gitopshq.activities.registration;

/**
 * The agent presented a valid registration token but named another cluster. Nothing is consumed:
 * the operator fixes the install's {@code agent.clusterName} and the same token still works.
 */
public class ClusterNameMismatchException extends RuntimeException {
  public ClusterNameMismatchException(String expected, String presented) {
    super(
        "this registration token belongs to cluster '"
            + expected
            + "', but the agent is configured as '"
            + presented
            + "' (GITOPSHQ_CLUSTER_NAME / agent.clusterName)");
  }
}
