/**
 * The agent's identity (cluster id and agent token) and the stores that keep it across restarts: a
 * private file or a Kubernetes Secret.
 */
package dev.gitopshq.agent.identity;
