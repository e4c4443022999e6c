package dev.gitopshq.workflows.release;

/**
 * A rollback: the same governance as a release (freeze, decision, approval or break-glass), then
 * one revert commit per environment branch restoring the chosen scope's files from the earlier
 * release; see {@link GovernedDeployment}.
 */
public class RollbackWorkflowImpl extends GovernedDeployment implements RollbackWorkflow {
  @Override
  public DeploymentResult run(DeploymentRequest request) {
    return execute(request);
  }
}
