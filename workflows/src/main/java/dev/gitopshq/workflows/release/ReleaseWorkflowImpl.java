package dev.gitopshq.workflows.release;

/** A release's first deploy or a promotion; see {@link GovernedDeployment}. */
public class ReleaseWorkflowImpl extends GovernedDeployment implements ReleaseWorkflow {
  @Override
  public DeploymentResult run(DeploymentRequest request) {
    return execute(request);
  }
}
