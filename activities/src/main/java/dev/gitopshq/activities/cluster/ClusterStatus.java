package dev.gitopshq.activities.cluster;

import java.time.Duration;
import java.time.Instant;

/**
 * A cluster's connection health as the Clusters page shows it. Derived, never stored, so that a hub
 * replica that dies with streams open cannot leave clusters looking Connected: without fresh
 * heartbeats every cluster drifts to Lagging and then Disconnected on its own.
 */
public enum ClusterStatus {
  /** Never registered; a registration token is waiting to be used. */
  Pending,
  /** Connected and the heartbeat is current. */
  Connected,
  /** Connected, but the heartbeat is late (still inside the disconnect timeout). */
  Lagging,
  /** No stream, or no heartbeat within the disconnect timeout (90 s by default). */
  Disconnected,
  /** Never registered, and no registration token is usable any more. */
  Expired,
  /**
   * Registered with a token that requires hub acceptance, and no admin has decided yet: the agent
   * may be connected, but the hub gives it no work. Only {@link #shown} says it.
   */
  PendingAcceptance,
  /** An admin rejected the agent; its token is revoked. Only {@link #shown} says it. */
  Rejected;

  /**
   * The status the API and the Clusters page show: an admin's pending or negative decision about
   * the agent first, otherwise the connection status ({@link #of}).
   */
  public static ClusterStatus shown(ClusterRow c, Instant now, Duration disconnectTimeout) {
    if (c.registeredAt() != null && c.pendingAcceptance()) {
      return PendingAcceptance;
    }
    if (c.registeredAt() != null && c.rejected()) {
      return Rejected;
    }
    return of(c, now, disconnectTimeout);
  }

  /**
   * Derives the connection status (never {@link #PendingAcceptance} or {@link #Rejected}).
   *
   * @param disconnectTimeout how long without a heartbeat before Disconnected (default 90 s)
   */
  public static ClusterStatus of(ClusterRow c, Instant now, Duration disconnectTimeout) {
    if (c.registeredAt() == null) {
      return c.registrationOpen() ? Pending : Expired;
    }
    if (c.connectedReplica() == null || c.lastSeenAt() == null) {
      return Disconnected;
    }
    Duration silence = Duration.between(c.lastSeenAt(), now);
    if (silence.compareTo(disconnectTimeout) > 0) {
      return Disconnected;
    }
    // One and a half intervals of grace, plus the hub's heartbeat flush period, before "late".
    Duration lateAfter =
        Duration.ofSeconds(c.heartbeatIntervalSeconds())
            .multipliedBy(3)
            .dividedBy(2)
            .plusSeconds(5);
    return silence.compareTo(lateAfter) > 0 ? Lagging : Connected;
  }
}
