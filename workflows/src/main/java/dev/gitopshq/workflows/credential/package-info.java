/**
 * Credential sync as a governed job: one durable workflow per cluster ({@code
 * credential-sync-<cluster>}) asks the organization's {@code gitopshq.credentials} policy about
 * every target, marks the denied ones failed with the policy's reason, has the replica that holds
 * the agent's stream send the prune list, and sends each allowed credential as a {@code
 * credential_sync} job of the agent-job outbox, waiting for the agent's answer to each. A change
 * while it runs is a signal: it syncs once more when the round ends. History holds ids, names and
 * counts, never a credential's value.
 */
package dev.gitopshq.workflows.credential;
