package dev.gitopshq.hub.gateway;

import dev.gitopshq.activities.cluster.ClusterMapper;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects heartbeats in memory and writes them in one statement per flush, so ten thousand agents
 * beating every 30 seconds cost a few hundred rows per statement every couple of seconds, not one
 * transaction per heartbeat. Only the newest heartbeat of a cluster is kept between flushes.
 */
final class HeartbeatBuffer {
  private static final Logger log = LoggerFactory.getLogger(HeartbeatBuffer.class);
  private final ClusterMapper clusters;
  private final Map<UUID, ClusterMapper.Heartbeat> pending = new ConcurrentHashMap<>();

  HeartbeatBuffer(ClusterMapper clusters) {
    this.clusters = clusters;
  }

  void record(UUID orgId, UUID clusterId, Instant at) {
    record(orgId, clusterId, at, null, null);
  }

  /**
   * @param status the agent's status as JSON, or null
   * @param rttMillis the previous heartbeat's round trip, or null
   */
  void record(UUID orgId, UUID clusterId, Instant at, String status, Integer rttMillis) {
    pending.put(clusterId, new ClusterMapper.Heartbeat(orgId, clusterId, at, status, rttMillis));
  }

  /** Writes everything buffered so far; returns how many clusters it touched. */
  int flush() {
    if (pending.isEmpty()) {
      return 0;
    }
    List<ClusterMapper.Heartbeat> batch = new ArrayList<>(pending.size());
    for (var entry : pending.entrySet()) {
      // Remove exactly what we write; a newer beat that arrives meanwhile stays for the next flush.
      if (pending.remove(entry.getKey(), entry.getValue())) {
        batch.add(entry.getValue());
      }
    }
    try {
      clusters.recordHeartbeats(batch);
    } catch (RuntimeException e) {
      // Put them back unless newer ones arrived, and try again at the next flush.
      batch.forEach(b -> pending.putIfAbsent(b.clusterId(), b));
      log.warn("could not record {} heartbeats: {}", batch.size(), e.toString());
      return 0;
    }
    return batch.size();
  }
}
