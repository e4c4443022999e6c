package dev.gitopshq.workflows.credential;

/**
 * Sync one cluster's credentials.
 *
 * @param cause why, for the policy's input and the audit log (e.g. "the agent connected")
 * @param actor who caused it: a member's or service account's id, or {@code system}
 */
public record CredentialSyncRequest(String orgId, String clusterId, String cause, String actor) {
  /** One workflow per cluster at a time: a second request while it runs becomes a signal. */
  public String workflowId() {
    return "credential-sync-" + clusterId;
  }
}
