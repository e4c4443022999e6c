package dev.gitopshq.workflows.release;

import io.temporal.activity.ActivityInterface;
import java.util.List;

/**
 * Verifying that the clusters run a deployment: after the deploy commits, every cluster that
 * delivers an environment through Flux or Argo CD is watched through its agent until its adapter
 * reports the commit applied and healthy, or the environment's timeout passes. Activity types are
 * prefixed {@code Runtime}.
 */
@ActivityInterface(namePrefix = "Runtime")
public interface RuntimeActivities {
  /**
   * The clusters of the deployment's environments whose delivery mode is {@code flux} or {@code
   * argocd}, in environment then cluster order, each with its environment's timeout.
   */
  List<RuntimeTarget> runtimeTargets(String orgId, String deploymentId);

  /**
   * Asks the target's adapter to reconcile at once (Flux {@code reconcile.fluxcd.io/requestedAt},
   * Argo CD refresh), then reads it through the cluster's agent until it runs {@code commit} and is
   * healthy, heartbeating while it waits, and records what it saw for the deployment's evidence.
   * Returns the last observation when {@code deadlineMillis} passes first; it does not throw for an
   * unverified cluster.
   *
   * @param deadlineMillis epoch milliseconds, fixed by the workflow, so a retry waits no longer
   */
  RuntimeObservation verify(
      String orgId, String deploymentId, RuntimeTarget target, String commit, long deadlineMillis);
}
