package dev.gitopshq.workflows.credential;

import dev.gitopshq.workflows.TaskQueues;
import io.temporal.activity.ActivityInterface;

/**
 * The steps of a credential sync that run on the task queue of the replica holding the agent's
 * stream ({@link TaskQueues#replica}); activity types are prefixed {@code CredSend}. Since version
 * 1 of the workflow ({@code credential-sync-jobs}) the credentials themselves go as {@code
 * credential_sync} jobs ({@link CredentialJobActivities}); only the prune list is sent from here.
 */
@ActivityInterface(namePrefix = "CredSend")
public interface CredentialSendActivities {
  /**
   * The send of version 0 of the workflow (runs still in flight when the job pipeline came): parks
   * one {@code credential_sync} job per credential of the targets {@code syncId} allowed (see
   * {@link CredentialSyncActivities#decide}), whose answers set the targets' status but reach no
   * activity, then sends the prune list naming exactly those targets, so the agent removes every
   * other Secret it wrote. Nothing this returns holds a value. {@code syncId} is the idempotency
   * key: a retry parks the same jobs.
   *
   * @throws IllegalStateException when this replica holds no stream of the cluster (retried)
   */
  SyncSent sync(String orgId, String clusterId, String syncId);

  /**
   * Sends the prune list naming exactly the targets {@code syncId} allowed, so the agent removes
   * every other Secret it wrote. When the agent lacks credential.sync, marks those targets failed
   * and returns why in {@link SyncSent#skipped} (nothing is then sent, and no job is worth
   * parking).
   *
   * @throws IllegalStateException when this replica holds no stream of the cluster (retried)
   */
  SyncSent prune(String orgId, String clusterId, String syncId);
}
