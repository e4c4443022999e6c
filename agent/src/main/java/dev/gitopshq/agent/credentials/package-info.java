/**
 * Credential sync (capability {@code credential.sync}): writes the hub's credentials as Secrets
 * into their target namespaces and removes those the hub no longer assigns. The job runner ({@code
 * dev.gitopshq.agent.jobs}) runs syncs and prunes one at a time, in the order they arrived.
 */
package dev.gitopshq.agent.credentials;
