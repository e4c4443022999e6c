package dev.gitopshq.activities.gateway;

import java.util.UUID;

/** What activities need from the agent gateway. */
public interface AgentGatewayPort {
  /**
   * A command was parked for the cluster's agent. If this replica holds the agent's stream it
   * sends it now; otherwise the replica that holds it finds it on its next sweep.
   */
  void commandQueued(UUID orgId, UUID clusterId);
}
