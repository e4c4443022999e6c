/**
 * The GitOpsHQ cluster agent: a plain Java process that dials out to the hub over gRPC.
 *
 * <p>{@link dev.gitopshq.agent.AgentMain} is the process entry point and {@link
 * dev.gitopshq.agent.Agent} the programmatic one. Sub-packages: {@code config} (environment
 * variables), {@code identity} (where the cluster id and agent token are kept) and {@code link}
 * (Register, the Connect stream, heartbeats and reconnects).
 */
package dev.gitopshq.agent;
