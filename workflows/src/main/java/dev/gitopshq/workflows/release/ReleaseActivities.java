package dev.gitopshq.workflows.release;

import dev.gitopshq.workflows.governance.Decision;
import dev.gitopshq.workflows.governance.FreezeCheck;
import dev.gitopshq.workflows.governance.Notification;
import io.temporal.activity.ActivityInterface;
import java.util.Map;

/**
 * The store, policy and repository steps of a deployment. Activity types are prefixed {@code
 * Release} ({@code ReleaseTransition}, {@code ReleaseDecide}, ...): the hub's worker also runs the
 * command activities, whose {@code Transition}, {@code Decide} and {@code Notify} would clash.
 */
@ActivityInterface(namePrefix = "Release")
public interface ReleaseActivities {
  /**
   * Moves the deployment to {@code status} and appends a timeline event; {@code seq} is the
   * idempotency key.
   */
  void transition(
      String orgId,
      String deploymentId,
      int seq,
      DeploymentStatus status,
      String actor,
      String detail);

  /**
   * The commit on main the release delivers. For a release whose revision is still being generated
   * this throws (and is retried) until the generation has committed or found nothing to change; a
   * failed generation fails it for good.
   */
  String resolveSource(String orgId, String releaseId);

  /** Asks OPA whether the deployment's environments are frozen. Fails closed: retried. */
  FreezeCheck checkFreeze(DeploymentRequest request);

  /** Asks OPA ({@code gitopshq.release}) for the decision and records it. Fails closed. */
  Decision decide(DeploymentRequest request);

  /**
   * Writes the deployment: one commit per environment branch (the release's rendered environment
   * for deploy and promote; for a rollback, the rolled-back release's files restored for the
   * rollback's scope only), then records the deliveries. Idempotent: a retry finds its commits.
   *
   * @return environment name to commit
   */
  Map<String, String> apply(String orgId, String deploymentId);

  /** Sends a signed webhook event; retried until delivered. */
  void notify(Notification notification);
}
