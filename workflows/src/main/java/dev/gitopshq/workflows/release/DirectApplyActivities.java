package dev.gitopshq.workflows.release;

import io.temporal.activity.ActivityInterface;
import java.util.List;

/**
 * Direct deploy: the clusters of a deployment's environments whose delivery mode is {@code direct}
 * apply the deploy commit through their agents. The manifests never travel through workflow
 * history: the hub reads them from the project's repository by commit when it sends the apply to
 * the agent. Activity types are prefixed {@code Direct}.
 */
@ActivityInterface(namePrefix = "Direct")
public interface DirectApplyActivities {
  /** The failure type of a direct-mode cluster whose agent has not announced direct.deploy. */
  String UNAVAILABLE = "DirectDeployUnavailable";

  /**
   * The direct-mode clusters of the deployment's environments, in environment then cluster order.
   * Fails for good ({@link #UNAVAILABLE}) when one of them has not announced {@code direct.deploy},
   * so that nothing is written.
   */
  List<DirectTarget> targets(String orgId, String deploymentId);

  /**
   * Parks the apply of {@code commit}'s files for the target's cluster and waits for the agent's
   * report (completed asynchronously by whichever hub replica receives it, like a command).
   *
   * @param applyId the idempotency key ({@link DirectTarget#applyId}): a retry parks the same apply
   *     again, and the agent answers a repeat with its first outcome
   */
  DirectOutcome apply(
      String orgId, String deploymentId, String applyId, DirectTarget target, String commit);

  /**
   * Appends the apply's per-object results to the deployment's timeline as events {@code firstSeq},
   * {@code firstSeq + 1}, ... (the keys that make a retry write nothing twice) and audits the
   * apply.
   *
   * @return how many events it appended
   */
  int record(String orgId, String deploymentId, String applyId, int firstSeq);
}
