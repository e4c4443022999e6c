package dev.gitopshq.hub.gateway;

import dev.gitopshq.activities.agentcert.AgentCertificates;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterTokenMapper;
import dev.gitopshq.hub.config.PgListener;
import io.grpc.Status;
import java.time.Clock;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the gateway does when another replica's commit concerns an agent whose stream this one holds
 * (channel {@value #CHANNEL}, V24): send its queued jobs, close streams whose token or client
 * certificate stopped working, tell the stream listeners of a changed credential. The same work
 * runs on the gateway's sweep ({@link #closeRevoked}), which notifications only make immediate.
 */
public final class AgentNotifications implements PgListener.Channel {
  static final String CHANNEL = "gitopshq_agents";

  private static final Logger log = LoggerFactory.getLogger(AgentNotifications.class);

  private final AgentConnections connections;
  private final JobDispatcher jobs;
  private final List<AgentStreamListener> listeners;
  private final ClusterTokenMapper tokens;
  private final ClusterMapper clusters;
  private final AgentCertificates certificates;
  private final Clock clock;
  private final Supplier<ScheduledExecutorService> timers;

  /**
   * @param timers the gateway's timer thread, null before it starts: the work runs there, one at a
   *     time with the sweep
   */
  AgentNotifications(
      AgentConnections connections,
      JobDispatcher jobs,
      List<AgentStreamListener> listeners,
      ClusterTokenMapper tokens,
      ClusterMapper clusters,
      AgentCertificates certificates,
      Clock clock,
      Supplier<ScheduledExecutorService> timers) {
    this.connections = connections;
    this.jobs = jobs;
    this.listeners = listeners;
    this.tokens = tokens;
    this.clusters = clusters;
    this.certificates = certificates;
    this.clock = clock;
    this.timers = timers;
  }

  @Override
  public String channel() {
    return CHANNEL;
  }

  /**
   * {@code job:<org>:<cluster>} (V40; {@code command:} before it) or {@code token:<org>:<cluster>},
   * from any replica's commit: when this replica holds the cluster's stream it sends the queued
   * jobs, or closes streams whose token stopped working, now rather than on its next sweep. The
   * work runs on the gateway's timer thread, one at a time with the sweep.
   */
  @Override
  public void onNotification(String payload) {
    String[] p = payload == null ? new String[0] : payload.split(":");
    if (p.length != 3) {
      return;
    }
    UUID org;
    UUID cluster;
    try {
      org = UUID.fromString(p[1]);
      cluster = UUID.fromString(p[2]);
    } catch (IllegalArgumentException e) {
      return;
    }
    ScheduledExecutorService t = timers.get();
    if (t == null || !connections.holds(org, cluster)) {
      return;
    }
    Runnable work =
        switch (p[0]) {
          case "job", "command" -> () -> jobs.sendQueued(org, cluster);
          case "token" -> this::closeRevoked;
          case "credential" -> () -> listeners.forEach(l -> l.notified(p[0], org, cluster));
          default -> null;
        };
    if (work != null) {
      t.execute(
          () -> {
            try {
              work.run();
            } catch (RuntimeException e) {
              log.warn("acting on {} failed (the sweep retries): {}", p[0], e.toString());
            }
          });
    }
  }

  @Override
  public void onListening(boolean listening) {
    // The sweep runs either way; notifications only make it immediate.
  }

  /**
   * Closes streams whose token stopped working (revoked by a rotation's end, a deregistration or an
   * admin's rejection, or past its grace expiry), whichever replica revoked it. Then ends the
   * streams of clusters an admin accepted while they waited: the agent reconnects at once, and its
   * new stream gets work like any other.
   */
  void closeRevoked() {
    Collection<AgentSession> sessions = connections.all();
    if (sessions.isEmpty()) {
      return;
    }
    Set<UUID> valid =
        new HashSet<>(
            tokens.stillValid(
                sessions.stream().map(s -> s.tokenId).distinct().toList(), clock.instant()));
    connections.closeTokens(
        sessions.stream().map(s -> s.tokenId).filter(t -> !valid.contains(t)).toList(),
        "agent token revoked");
    List<UUID> certificateIds =
        sessions.stream().map(s -> s.certificateId).filter(c -> c != null).distinct().toList();
    if (!certificateIds.isEmpty()) {
      Set<UUID> good = new HashSet<>(certificates.stillValid(certificateIds));
      for (AgentSession s : sessions) {
        if (s.certificateId != null
            && !good.contains(s.certificateId)
            && s.close(
                Status.UNAUTHENTICATED.withDescription(
                    "agent client certificate revoked or expired"))) {
          log.info("cluster {}: its client certificate was revoked or expired", s.clusterId);
          connections.remove(s);
        }
      }
    }
    for (AgentSession s : connections.pendingAcceptance()) {
      if (!s.isClosed()
          && !clusters.isPendingAcceptance(s.orgId, s.clusterId)
          && s.close(
              Status.UNAVAILABLE.withDescription(
                  "the cluster was accepted by an organization admin; reconnect"))) {
        log.info(
            "cluster {} accepted; its waiting stream ends so the agent reconnects", s.clusterId);
        connections.remove(s);
      }
    }
  }
}
