package dev.gitopshq.workflows.credential;

import dev.gitopshq.workflows.TaskQueues;
import io.temporal.activity.ActivityInterface;

/**
 * The one step that writes credentials into a cluster. It runs on the task queue of the replica
 * holding the agent's stream ({@link TaskQueues#replica}); activity types are prefixed {@code
 * CredSend}.
 */
@ActivityInterface(namePrefix = "CredSend")
public interface CredentialSendActivities {
  /**
   * Loads the targets {@code syncId} allowed (see {@link CredentialSyncActivities#decide}), opens
   * each credential and sends it down the agent's stream, then the prune list naming exactly those
   * targets, so the agent removes every other Secret it wrote. The value is opened here and leaves
   * only on the wire; nothing this returns holds it. {@code syncId} is the idempotency key: a retry
   * sends the same request ids.
   *
   * @throws IllegalStateException when this replica holds no stream of the cluster (retried)
   */
  SyncSent sync(String orgId, String clusterId, String syncId);
}
