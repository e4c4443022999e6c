package dev.gitopshq.workflows.release;

/** Where a deployment is. The last six are final. */
public enum DeploymentStatus {
  pending,
  pending_approval,
  deploying,
  deployed,
  frozen,
  rejected,
  expired,
  cancelled,
  failed;

  public boolean isFinal() {
    return ordinal() >= deployed.ordinal();
  }
}
