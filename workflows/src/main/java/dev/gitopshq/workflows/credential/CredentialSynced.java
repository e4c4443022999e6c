package dev.gitopshq.workflows.credential;

/**
 * How one credential's {@code credential_sync} job ended. Ids and counts only: the value never
 * reaches the workflow.
 *
 * @param credentialId the credential sent
 * @param version the credential's version the agent wrote (0 when it was not sent)
 * @param synced namespaces the agent wrote it into
 * @param failed namespaces it could not write (their status says why)
 * @param error why the agent was not asked (the job was refused or not taken in time), or empty
 *     when the agent answered
 */
public record CredentialSynced(
    String credentialId, long version, int synced, int failed, String error) {
  public CredentialSynced {
    error = error == null ? "" : error;
  }

  /** The agent answered the job. */
  public boolean answered() {
    return error.isEmpty();
  }
}
