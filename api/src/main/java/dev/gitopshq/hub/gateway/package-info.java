/**
 * The agent gateway: {@code agent.v1.AgentHub} over gRPC on the agent port, with the standard
 * health service (no server reflection). It authenticates tokens by hash, consumes registration
 * tokens atomically, holds each agent's one {@code Connect} stream, batches heartbeats, and signals
 * the registration workflow.
 */
package dev.gitopshq.hub.gateway;
