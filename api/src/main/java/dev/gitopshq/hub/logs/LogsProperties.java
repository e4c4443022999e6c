package dev.gitopshq.hub.logs;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Log streaming limits ({@code gitopshq.logs.*}).
 *
 * @param maxPerCluster concurrent sessions per cluster (GITOPSHQ_LOGS_MAX_PER_CLUSTER, 20)
 * @param maxPerUser concurrent sessions per member or service account (GITOPSHQ_LOGS_MAX_PER_USER,
 *     5)
 * @param windowBytes bytes one session may have in flight between agent and reader
 *     (GITOPSHQ_LOGS_WINDOW_BYTES, 256 KiB); the hub buffers at most this per session
 * @param maxLineBytes longer lines are cut with a marker (GITOPSHQ_LOGS_MAX_LINE_BYTES, 16 KiB)
 * @param idleTimeout a follow session with no log line for this long ends
 *     (GITOPSHQ_LOGS_IDLE_TIMEOUT, 10 min)
 * @param stallTimeout a reader that leaves bytes waiting for this long is cut
 *     (GITOPSHQ_LOGS_STALL_TIMEOUT, 30 s)
 * @param openTimeout how long the agent may take to open the log (GITOPSHQ_LOGS_OPEN_TIMEOUT, 10 s)
 * @param recheckInterval how often open sessions check their caller may still read logs (token or
 *     session not revoked, member not removed; GITOPSHQ_LOGS_RECHECK_INTERVAL, 1 s, at most 1 s)
 * @param accessRecheckInterval how often open sessions of members check that the cluster is still
 *     visible to them (grants, team memberships, role, the cluster's labels;
 *     GITOPSHQ_LOGS_ACCESS_RECHECK_INTERVAL, 15 s, between 100 ms and 5 min). A change made through
 *     this replica is checked at once; this bounds the others.
 */
@ConfigurationProperties("gitopshq.logs")
public record LogsProperties(
    int maxPerCluster,
    int maxPerUser,
    int windowBytes,
    int maxLineBytes,
    Duration idleTimeout,
    Duration stallTimeout,
    Duration openTimeout,
    Duration recheckInterval,
    Duration accessRecheckInterval) {

  public LogsProperties {
    maxPerCluster = maxPerCluster > 0 ? maxPerCluster : 20;
    maxPerUser = maxPerUser > 0 ? maxPerUser : 5;
    windowBytes = Math.max(128 * 1024, windowBytes > 0 ? windowBytes : 256 * 1024);
    maxLineBytes = Math.max(256, Math.min(64 * 1024, maxLineBytes > 0 ? maxLineBytes : 16 * 1024));
    idleTimeout = idleTimeout != null ? idleTimeout : Duration.ofMinutes(10);
    stallTimeout = stallTimeout != null ? stallTimeout : Duration.ofSeconds(30);
    openTimeout = openTimeout != null ? openTimeout : Duration.ofSeconds(10);
    // Revocation must end a stream within 2 s: the check runs at least once a second.
    recheckInterval =
        recheckInterval == null || recheckInterval.toMillis() < 100
            ? Duration.ofSeconds(1)
            : (recheckInterval.compareTo(Duration.ofSeconds(1)) > 0
                ? Duration.ofSeconds(1)
                : recheckInterval);
    accessRecheckInterval =
        accessRecheckInterval == null || accessRecheckInterval.toMillis() < 100
            ? Duration.ofSeconds(15)
            : (accessRecheckInterval.compareTo(Duration.ofMinutes(5)) > 0
                ? Duration.ofMinutes(5)
                : accessRecheckInterval);
  }
}
