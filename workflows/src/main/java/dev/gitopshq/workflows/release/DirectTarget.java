package dev.gitopshq.workflows.release;

/**
 * A cluster an environment of a deployment delivers to in direct mode: its agent applies the
 * environment's deploy commit (capability {@code direct.deploy}).
 *
 * @param environment the environment's name
 * @param clusterId the cluster's id
 * @param cluster the cluster's name (its directory on the deploy branch)
 */
public record DirectTarget(String environment, String clusterId, String cluster) {
  /**
   * The idempotency key of this target's apply in one deployment: the agent applies each key at
   * most once while it lives, and the hub parks and completes it by this key.
   */
  public String applyId(String deploymentId) {
    return deploymentId + ":" + environment + ":" + clusterId;
  }
}
