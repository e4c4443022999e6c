package dev.gitopshq.hub.metrics;

import dev.gitopshq.activities.metrics.FleetCountsMapper;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Gauges of the whole installation, read from PostgreSQL at most every {@code
 * gitopshq.metrics.refresh} (15 s) rather than on every scrape, so several Prometheus servers
 * scraping several replicas cost the database nothing more:
 *
 * <ul>
 *   <li>{@code gitopshq_clusters{status}}: clusters by status (pending, connected, disconnected);
 *   <li>{@code gitopshq_approvals_pending{kind}}: commands and deployments waiting for approvers;
 *   <li>{@code gitopshq_approvals_pending_oldest_age_seconds{kind}}: how long the oldest has waited
 *       (0 when none waits).
 * </ul>
 */
@Component
public class FleetGauges {
  static final List<String> CLUSTER_STATUSES = List.of("pending", "connected", "disconnected");
  static final List<String> APPROVAL_KINDS = List.of("command", "deployment");

  private static final Logger log = LoggerFactory.getLogger(FleetGauges.class);

  private final FleetCountsMapper counts;
  private final Clock clock;
  private final Map<String, Long> clusters = new ConcurrentHashMap<>();
  private final Map<String, Long> pending = new ConcurrentHashMap<>();
  private final Map<String, Instant> oldest = new ConcurrentHashMap<>();
  private final AtomicReference<Instant> refreshedAt = new AtomicReference<>(Instant.EPOCH);

  public FleetGauges(FleetCountsMapper counts, Clock clock, MeterRegistry meters) {
    this.counts = counts;
    this.clock = clock;
    for (String s : CLUSTER_STATUSES) {
      Gauge.builder("gitopshq.clusters", () -> clusters.getOrDefault(s, 0L))
          .description("Clusters by status")
          .tag("status", s)
          .register(meters);
    }
    for (String k : APPROVAL_KINDS) {
      Gauge.builder("gitopshq.approvals.pending", () -> pending.getOrDefault(k, 0L))
          .description("Commands and deployments waiting for approvers")
          .tag("kind", k)
          .register(meters);
      Gauge.builder("gitopshq.approvals.pending.oldest.age", () -> ageSeconds(k))
          .description("How long the oldest waiting approval has waited")
          .baseUnit("seconds")
          .tag("kind", k)
          .register(meters);
    }
  }

  private double ageSeconds(String kind) {
    Instant o = oldest.get(kind);
    return o == null ? 0 : Math.max(0, Duration.between(o, clock.instant()).toMillis() / 1000.0);
  }

  /** Reads the counts again; a failure keeps the last ones (and the next run retries). */
  @Scheduled(initialDelayString = "1s", fixedDelayString = "${gitopshq.metrics.refresh:15s}")
  public void refresh() {
    try {
      Map<String, Long> c = new ConcurrentHashMap<>();
      counts.clustersByStatus().forEach(s -> c.put(s.status(), s.count()));
      CLUSTER_STATUSES.forEach(s -> clusters.put(s, c.getOrDefault(s, 0L)));
      for (FleetCountsMapper.Pending p : counts.pendingApprovals()) {
        pending.put(p.kind(), p.count());
        if (p.oldest() == null) {
          oldest.remove(p.kind());
        } else {
          oldest.put(p.kind(), p.oldest());
        }
      }
      refreshedAt.set(clock.instant());
    } catch (RuntimeException e) {
      log.warn("could not read the fleet counts for the metrics: {}", e.toString());
    }
  }

  Instant refreshedAt() {
    return refreshedAt.get();
  }
}
