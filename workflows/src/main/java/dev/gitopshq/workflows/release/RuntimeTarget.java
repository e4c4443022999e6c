package dev.gitopshq.workflows.release;

/**
 * A cluster an environment of a deployment delivers to through a runtime adapter (Flux or Argo CD):
 * the deployment is verified there when the adapter reports the environment's deploy commit applied
 * and healthy.
 *
 * @param environment the environment's name
 * @param clusterId the cluster's id
 * @param cluster the cluster's name (its directory on the deploy branch)
 * @param mode the cluster's delivery mode for the environment: {@code flux} or {@code argocd}
 * @param timeoutSeconds how long the environment gives a cluster to run the commit before the
 *     deployment is degraded
 */
public record RuntimeTarget(
    String environment, String clusterId, String cluster, String mode, long timeoutSeconds) {}
