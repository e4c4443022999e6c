package dev.gitopshq.hub.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.cluster.AgentHealthMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Service;

/**
 * The agent-health figures of the Clusters page: uptime over 24 hours, 7 days and 30 days from the
 * connection sessions, the heartbeat round trip and what the agent reported about itself. One query
 * per window for a whole organization, not per cluster.
 */
@Service
public class AgentHealth {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final Duration DAY = Duration.ofDays(1);
  static final Duration WEEK = Duration.ofDays(7);
  static final Duration MONTH = Duration.ofDays(30);

  private final AgentHealthMapper mapper;

  public AgentHealth(AgentHealthMapper mapper) {
    this.mapper = mapper;
  }

  /**
   * One cluster's figures.
   *
   * @param uptime24h percent of the last 24 hours (or since registration, if later) the agent was
   *     connected; null before registration
   * @param heartbeatLatencyMillis the last heartbeat's round trip
   * @param agent what the agent last reported: heap, inventory objects, whether its informers have
   *     listed, kinds it cannot list
   */
  public record Figures(
      Double uptime24h,
      Double uptime7d,
      Double uptime30d,
      Integer heartbeatLatencyMillis,
      JsonNode agent) {}

  /**
   * The figures of the given clusters of an organization, by cluster id: for one cluster the
   * queries read only its rows, for a list they read the organization's once.
   */
  public Map<UUID, Figures> of(UUID orgId, List<ClusterRow> clusters, Instant now) {
    UUID only = clusters.size() == 1 ? clusters.get(0).id() : null;
    Map<UUID, Double> day = seconds(orgId, only, now.minus(DAY), now);
    Map<UUID, Double> week = seconds(orgId, only, now.minus(WEEK), now);
    Map<UUID, Double> month = seconds(orgId, only, now.minus(MONTH), now);
    Map<UUID, AgentHealthMapper.Reported> reported = new HashMap<>();
    mapper.reported(orgId, only).forEach(r -> reported.put(r.clusterId(), r));
    Map<UUID, Figures> out = new HashMap<>();
    for (ClusterRow c : clusters) {
      AgentHealthMapper.Reported r = reported.get(c.id());
      out.put(
          c.id(),
          new Figures(
              percent(day, c, now, DAY),
              percent(week, c, now, WEEK),
              percent(month, c, now, MONTH),
              r == null ? null : r.heartbeatRttMillis(),
              r == null ? null : parse(r.agentStatus())));
    }
    return out;
  }

  private Map<UUID, Double> seconds(UUID orgId, UUID only, Instant from, Instant to) {
    Map<UUID, Double> m = new HashMap<>();
    mapper.connected(orgId, only, from, to).forEach(c -> m.put(c.clusterId(), c.seconds()));
    return m;
  }

  /** Connected time over the window, or since registration when that is later; one decimal. */
  static Double percent(Map<UUID, Double> connected, ClusterRow c, Instant now, Duration window) {
    if (c.registeredAt() == null) {
      return null;
    }
    Instant from = now.minus(window);
    if (c.registeredAt().isAfter(from)) {
      from = c.registeredAt();
    }
    double span = Duration.between(from, now).toMillis() / 1000.0;
    if (span <= 0) {
      return null;
    }
    double up = connected.getOrDefault(c.id(), 0.0);
    return Math.round(Math.min(100.0, 100.0 * up / span) * 10) / 10.0;
  }

  private static JsonNode parse(String json) {
    try {
      return json == null ? null : JSON.readTree(json);
    } catch (IOException e) {
      return null;
    }
  }
}
