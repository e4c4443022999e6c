package dev.gitopshq.workflows.release;

/**
 * Where a deployment is. The last seven are final: {@code deployed} when every cluster runs it,
 * {@code degraded} when its commits are written but a cluster did not run it in time.
 */
public enum DeploymentStatus {
  pending,
  pending_approval,
  deploying,
  deployed,
  frozen,
  rejected,
  expired,
  cancelled,
  failed,
  degraded;

  public boolean isFinal() {
    return ordinal() >= deployed.ordinal();
  }
}
