package dev.gitopshq.hub.gateway;

import dev.gitopshq.activities.cluster.AgentHealthMapper;
import dev.gitopshq.activities.cluster.ClusterMapper;
import io.grpc.Context;
import io.grpc.Status;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent streams this replica holds, one per cluster. A new stream for a cluster replaces the
 * old one (the agent reconnected, or a second copy started); a stream whose token is revoked, or
 * that stays silent past the disconnect timeout, is closed.
 *
 * <p>Hub acceptance is checked here and only here: a stream whose cluster waits for an admin's
 * decision ({@link AgentSession#accepted()} false) is held, so it can be closed like any other, but
 * {@link #get}, {@link #sessions} and {@link #isConnected} do not show it, and every path that
 * sends work (commands, deliveries, direct applies, drift checks, credential syncs, adapter wiring,
 * live reads, logs, token rotations) finds streams through them.
 */
final class AgentConnections {
  private static final Logger log = LoggerFactory.getLogger(AgentConnections.class);

  private final Map<UUID, AgentSession> byCluster = new ConcurrentHashMap<>();
  private final ClusterMapper clusters;
  private final AgentHealthMapper health;
  private final String replicaId;
  private final Clock clock;
  private final Consumer<AgentSession> onLost;

  /**
   * @param onLost called once for every accepted stream that ended (the agent may come back)
   */
  AgentConnections(
      ClusterMapper clusters,
      AgentHealthMapper health,
      String replicaId,
      Clock clock,
      Consumer<AgentSession> onLost) {
    this.clusters = clusters;
    this.health = health;
    this.replicaId = replicaId;
    this.clock = clock;
    this.onLost = onLost;
  }

  String replicaId() {
    return replicaId;
  }

  /** Records an accepted stream (and its session, for uptime), closing the one it replaces. */
  void add(AgentSession session) {
    try {
      health.openSession(
          session.orgId, session.clusterId, session.sessionId, replicaId, session.connectedAt());
    } catch (RuntimeException e) {
      log.warn("could not record the session of cluster {}: {}", session.clusterId, e.toString());
    }
    AgentSession previous = byCluster.put(session.clusterId, session);
    if (previous != null && previous != session) {
      previous.close(
          Status.ALREADY_EXISTS.withDescription("replaced by a newer connection of this agent"));
    }
  }

  /** Forgets a stream that ended, and clears the cluster's stream holder if it was this one. */
  void remove(AgentSession session) {
    // A stream the agent or the network ended lands here in its call's gRPC context, which is
    // cancelled by then. Temporal's client is gRPC too: a call started in that context fails at
    // once (CANCELLED), and the disconnect watch never started, so no agent.disconnected
    // notification was ever sent for a dropped connection. What follows runs detached from it.
    Context.ROOT.run(() -> forget(session));
  }

  private void forget(AgentSession session) {
    byCluster.remove(session.clusterId, session);
    if (session.connectedAt() != null) {
      try {
        health.closeSession(session.orgId, session.sessionId, clock.instant());
      } catch (RuntimeException e) {
        log.warn("could not close the session of cluster {}: {}", session.clusterId, e.toString());
      }
      try {
        clusters.markDisconnected(
            session.orgId, session.clusterId, replicaId, session.connectedAt(), clock.instant());
      } catch (RuntimeException e) {
        // The status is derived from heartbeats too, so the cluster still turns Disconnected.
        log.warn("could not record disconnect of cluster {}: {}", session.clusterId, e.toString());
      }
      try {
        onLost.accept(session);
      } catch (RuntimeException e) {
        log.warn(
            "could not start the disconnect watch of cluster {}: {}",
            session.clusterId,
            e.toString());
      }
    }
  }

  /** The accepted streams held here right now: the ones that may get work. */
  Collection<AgentSession> sessions() {
    return byCluster.values().stream().filter(AgentSession::accepted).toList();
  }

  /** Every stream held here, including those that wait for an admin's acceptance. */
  Collection<AgentSession> all() {
    return List.copyOf(byCluster.values());
  }

  /** The streams held here whose cluster waits for an admin's acceptance. */
  Collection<AgentSession> pendingAcceptance() {
    return byCluster.values().stream().filter(s -> !s.accepted()).toList();
  }

  /** The cluster's accepted stream, if this replica holds one. */
  Optional<AgentSession> get(UUID clusterId) {
    return Optional.ofNullable(byCluster.get(clusterId)).filter(AgentSession::accepted);
  }

  /** The organization's cluster's stream on this replica, once the hub has welcomed it. */
  Optional<AgentSession> welcomed(UUID orgId, UUID clusterId) {
    return get(clusterId)
        .filter(s -> s.orgId.equals(orgId) && s.connectedAt() != null && !s.isClosed());
  }

  /** Whether this replica holds a stream of the organization's cluster, accepted or not. */
  boolean holds(UUID orgId, UUID clusterId) {
    AgentSession s = byCluster.get(clusterId);
    return s != null && s.orgId.equals(orgId);
  }

  boolean isConnected(UUID clusterId) {
    AgentSession s = byCluster.get(clusterId);
    return s != null && s.accepted() && !s.isClosed();
  }

  int size() {
    return byCluster.size();
  }

  /** Closes every stream opened with one of these tokens (they were revoked). */
  int closeTokens(Collection<UUID> tokenIds, String reason) {
    int closed = 0;
    for (AgentSession s : List.copyOf(byCluster.values())) {
      if (tokenIds.contains(s.tokenId) && s.close(Status.UNAUTHENTICATED.withDescription(reason))) {
        remove(s);
        closed++;
      }
    }
    return closed;
  }

  /** Closes streams that sent nothing within {@code timeout}; the agent will reconnect. */
  int closeSilent(Duration timeout) {
    Instant cutoff = clock.instant().minus(timeout);
    int closed = 0;
    for (AgentSession s : List.copyOf(byCluster.values())) {
      if (s.lastSeen().isBefore(cutoff)
          && s.close(
              Status.UNAVAILABLE.withDescription(
                  "no heartbeat within " + timeout.toSeconds() + " s"))) {
        remove(s);
        closed++;
      }
    }
    return closed;
  }

  /** Ends every stream, e.g. when the replica shuts down; agents reconnect elsewhere. */
  void closeAll(String reason) {
    for (AgentSession s : List.copyOf(byCluster.values())) {
      if (s.close(Status.UNAVAILABLE.withDescription(reason))) {
        remove(s);
      }
    }
  }
}
