package dev.gitopshq.hub.gateway;

import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.ClusterIdentity;
import java.util.Set;
import java.util.UUID;

/**
 * A feature that works over agents' streams without the gateway knowing it (credential sync): told
 * when an agent is welcomed on this replica, when one sends a message meant for it, and when a
 * notification on {@code gitopshq_agents} names a cluster this replica holds. Called on gateway
 * threads: implementations hand real work to their own executor.
 */
public interface AgentStreamListener {

  /** The agent's Hello was accepted on this replica. */
  default void welcomed(UUID orgId, UUID clusterId, Set<String> capabilities) {}

  /**
   * The welcomed agent's Hello carried its cluster's identity (validated), e.g. the labels its
   * chart sets. Called after {@link #welcomed}.
   */
  default void identityReported(UUID orgId, UUID clusterId, ClusterIdentity identity) {}

  /** The agent sent a message of a kind the listener {@link #accepts}. */
  default void message(UUID orgId, UUID clusterId, AgentMessage message) {}

  /** Whether messages with this payload are the listener's. */
  default boolean accepts(AgentMessage.PayloadCase payload) {
    return false;
  }

  /**
   * A notification {@code <kind>:<org>:<cluster>} arrived for a cluster whose stream this replica
   * holds.
   */
  default void notified(String kind, UUID orgId, UUID clusterId) {}
}
