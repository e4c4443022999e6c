package dev.gitopshq.workflows.release;

import dev.gitopshq.workflows.governance.Requester;
import java.util.List;

/**
 * One governed deployment of a release.
 *
 * @param action deploy (a release's first environment), promote or rollback
 * @param environments the environment names it writes to, in the organization's order
 * @param approvalSeconds how long approvers have before the request expires
 * @param summary one line for the inbox and notifications
 */
public record DeploymentRequest(
    String orgId,
    String projectId,
    String releaseId,
    String deploymentId,
    String action,
    List<String> environments,
    Requester requester,
    boolean breakGlass,
    String breakGlassJustification,
    long approvalSeconds,
    String summary) {
  public static final String DEPLOY = "deploy";
  public static final String PROMOTE = "promote";
  public static final String ROLLBACK = "rollback";

  public DeploymentRequest {
    environments = List.copyOf(environments);
  }

  /** The workflow id: rollbacks are keyed by their release, the others by the deployment. */
  public String workflowId() {
    return ROLLBACK.equals(action) ? "rollback-" + releaseId : "deployment-" + deploymentId;
  }

  /** The inbox kind of the approval this deployment may wait for. */
  public String approvalKind() {
    return switch (action) {
      case PROMOTE -> "promotion";
      case ROLLBACK -> "rollback";
      default -> "release";
    };
  }
}
