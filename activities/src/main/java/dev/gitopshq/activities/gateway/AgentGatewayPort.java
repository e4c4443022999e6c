package dev.gitopshq.activities.gateway;

import java.util.UUID;

/** What activities need from the agent gateway. */
public interface AgentGatewayPort {
  /**
   * A command was parked for the cluster's agent. If this replica holds the agent's stream it sends
   * it now; otherwise the replica that holds it finds it on its next sweep.
   */
  void commandQueued(UUID orgId, UUID clusterId);

  /**
   * Sends a new agent token down the cluster's stream, if this replica holds it.
   *
   * @param token the plaintext; it goes on the wire and nowhere else
   * @return false when this replica holds no stream for the cluster
   */
  boolean sendTokenRotation(UUID orgId, UUID clusterId, String rotationId, String token);

  /**
   * Asks the cluster's agent for a fresh inventory snapshot, if this replica holds its stream.
   *
   * @return false when this replica holds no stream for the cluster
   */
  boolean requestInventory(UUID orgId, UUID clusterId, String requestId);
}
