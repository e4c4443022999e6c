/**
 * Credential sync (capability {@code credential.sync}): writes the hub's credentials as Secrets
 * into their target namespaces and removes those the hub no longer assigns.
 */
package dev.gitopshq.agent.credentials;
