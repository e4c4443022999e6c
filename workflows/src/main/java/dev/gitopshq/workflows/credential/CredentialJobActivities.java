package dev.gitopshq.workflows.credential;

import io.temporal.activity.ActivityInterface;

/**
 * Sends one credential as a {@code credential_sync} job of the agent-job outbox ({@code
 * agent_jobs}); activity types are prefixed {@code CredJob}. Runs on any hub replica: the job is
 * parked with the activity's task token and the replica holding the agent's stream sends it, again
 * after a reconnect, and completes the activity with the agent's answer.
 */
@ActivityInterface(namePrefix = "CredJob")
public interface CredentialJobActivities {
  /**
   * Parks the job of {@code credentialId} for the round {@code syncId} (see {@link
   * CredentialSyncActivities#decide}) and completes with the agent's answer. The job's reference is
   * a request id derived from both, so a retried attempt takes over the same job and the agent
   * answers a repeat from memory. The job names the credential only; its value is read and opened
   * when a stream carries it, never stored in the job nor passed through Temporal.
   */
  CredentialSynced send(String orgId, String clusterId, String syncId, String credentialId);
}
