package dev.gitopshq.workflows.rotation;

import dev.gitopshq.workflows.TaskQueues;
import io.temporal.activity.ActivityInterface;

/**
 * Runs on the task queue of the replica that holds the agent's stream ({@link #queueOf}): creates
 * the new token, stores its hash as pending, and sends the plaintext down the stream. The token
 * leaves this activity only on the wire to the agent; the workflow gets its id.
 */
@ActivityInterface
public interface RotationDeliveryActivities {
  /** The task queue a replica's worker serves for work that must run where a stream is held. */
  static String queueOf(String replicaId) {
    return TaskQueues.replica(replicaId);
  }

  /**
   * Issues and delivers the new token (idempotent on the rotation id: a retry re-sends a fresh
   * token only if none was stored for this rotation).
   *
   * @return the new token's id
   * @throws IllegalStateException when the agent is not connected to this replica
   */
  String issueAndSend(String orgId, String clusterId, String rotationId);
}
