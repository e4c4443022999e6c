package dev.gitopshq.workflows.agentwatch;

/**
 * A stream that ended.
 *
 * @param connectedAtMillis when the ended stream was accepted; a newer connection has another
 * @param disconnectTimeoutSeconds how long the agent may stay away before it counts as disconnected
 *     (90 s by default)
 */
public record AgentWatchRequest(
    String orgId,
    String clusterId,
    String clusterName,
    long connectedAtMillis,
    long disconnectTimeoutSeconds) {

  public String workflowId() {
    return "agent-watch-" + clusterId + "-" + connectedAtMillis;
  }
}
