/**
 * Agent token rotation: a new token is issued and delivered down the agent's stream by the replica
 * that holds it; once the agent has persisted it and acknowledged, the new token becomes active and
 * the old one keeps working for a grace period, then is revoked. Without an acknowledgement the new
 * token is revoked and the old one stays. History holds token ids, never tokens. The workflow id is
 * {@code token-rotation-{rotationId}}.
 */
package dev.gitopshq.workflows.rotation;
