package dev.gitopshq.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.store.TestSchema;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Uptime from connection sessions on PostgreSQL, at fixed times: overlapping streams count once, a
 * session cut by the window counts only inside it, and a session whose replica died counts up to
 * the cluster's last heartbeat.
 */
class AgentHealthIT {
  static TestSchema schema;
  static final Instant NOW = Instant.parse("2026-11-24T12:00:00Z");
  UUID org;
  UUID cluster;
  AgentHealthMapper health;

  @BeforeAll
  static void database() throws Exception {
    schema = TestSchema.create("agent_health_it", AgentHealthMapper.class, ClusterMapper.class);
  }

  @AfterAll
  static void close() {
    if (schema != null) {
      schema.close();
    }
  }

  @BeforeEach
  void cluster() throws Exception {
    org = schema.newOrg();
    cluster = schema.newCluster(org);
    health = schema.mapper(AgentHealthMapper.class);
  }

  static Instant hoursAgo(double h) {
    return NOW.minus(Duration.ofMinutes(Math.round(h * 60)));
  }

  void session(double fromHoursAgo, Double toHoursAgo) {
    UUID id = UUID.randomUUID();
    health.openSession(org, cluster, id, "replica-a", hoursAgo(fromHoursAgo));
    if (toHoursAgo != null) {
      health.closeSession(org, id, hoursAgo(toHoursAgo));
    }
  }

  double connectedHours(Duration window) {
    List<AgentHealthMapper.Connected> c = health.connected(org, null, NOW.minus(window), NOW);
    return c.isEmpty() ? 0 : Math.round(c.get(0).seconds() / 360.0) / 10.0;
  }

  @Test
  void overlappingStreamsCountOnceAndTheWindowCutsSessions() throws Exception {
    session(30, 20.0); // 4 h of it fall inside the last 24 h
    session(10, 9.0);
    session(9.5, 8.0); // overlaps the previous one: together 2 h
    schema.exec(
        "update clusters set last_seen_at = ? where id = ?", Timestamp.from(hoursAgo(1)), cluster);
    session(2, null); // never closed: its replica died; counts until the last heartbeat, 1 h

    assertThat(connectedHours(Duration.ofHours(24))).isEqualTo(7.0);
    assertThat(connectedHours(Duration.ofDays(7))).isEqualTo(13.0);
    assertThat(connectedHours(Duration.ofHours(1))).isEqualTo(0.0);
  }

  @Test
  void anotherOrganizationSeesNoneOfIt() throws Exception {
    session(5, 1.0);
    UUID other = schema.newOrg();
    assertThat(health.connected(other, null, NOW.minus(Duration.ofDays(1)), NOW)).isEmpty();
    assertThat(health.connected(other, cluster, NOW.minus(Duration.ofDays(1)), NOW)).isEmpty();
    UUID id = UUID.randomUUID();
    health.openSession(org, cluster, id, "replica-a", hoursAgo(1));
    assertThat(health.closeSession(other, id, NOW)).isZero();
    assertThat(health.closeSession(org, id, NOW)).isEqualTo(1);
    assertThat(health.closeSession(org, id, NOW.plus(1, ChronoUnit.MINUTES)))
        .as("closed once")
        .isZero();
  }
}
