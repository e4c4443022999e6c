package dev.gitopshq.workflows.credential;

import io.temporal.activity.ActivityInterface;

/** The store and policy side of a credential sync; activity types are prefixed {@code CredSync}. */
@ActivityInterface(namePrefix = "CredSync")
public interface CredentialSyncActivities {
  /**
   * Asks the organization's {@code credentials} policy about every target of the cluster (one
   * evaluation per credential, with its target namespaces), and stamps each target with {@code
   * syncId}: an allowed target may be written by this round's {@link CredentialSendActivities#sync}
   * and nothing else; a denied one is set failed with the policy's reason and audited as {@code
   * credential.sync_denied} when its denial is new. Idempotent for a given {@code syncId} (the
   * key). Throws while OPA cannot answer, so Temporal retries and nothing is sent: the decision
   * fails closed.
   */
  SyncDecision decide(String orgId, String clusterId, String syncId, String cause, String actor);

  /** The id of the hub replica holding the cluster's agent stream, or null when none does. */
  String streamHolder(String orgId, String clusterId);
}
