package dev.gitopshq.workflows.credential;

/**
 * What one send did.
 *
 * @param credentials credentials sent to the agent (their namespaces answer later)
 * @param failed credentials not sent (they do not decrypt); their targets are failed
 * @param skipped why nothing was sent (the agent lacks credential.sync), or empty
 */
public record SyncSent(int credentials, int failed, String skipped) {}
