/**
 * Cluster registration: a registration token is issued, then either consumed by the agent's {@code
 * Register} call (signalled by the gateway), superseded by a newer join token, or expired by a
 * durable one-hour timer. The workflow id is {@code registration-{tokenId}}; its history holds ids
 * and hashes, never a token.
 */
package dev.gitopshq.workflows.registration;
