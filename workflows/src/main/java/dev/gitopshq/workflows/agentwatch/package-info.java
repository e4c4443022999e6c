/**
 * Watches a cluster whose agent stream ended: after the disconnect timeout, if the agent has not
 * come back, the "agent.disconnected" notification goes out. A hub restart that the agents ride out
 * by reconnecting raises nothing. The workflow id is {@code agent-watch-{clusterId}-{connectedAt}},
 * one per lost connection.
 */
package dev.gitopshq.workflows.agentwatch;
