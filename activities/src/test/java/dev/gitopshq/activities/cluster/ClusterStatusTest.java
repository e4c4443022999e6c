package dev.gitopshq.activities.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Connected, Lagging and the 90-second disconnect, with the clock under the test's control. */
class ClusterStatusTest {
  static final Instant T0 = Instant.parse("2026-11-24T12:00:00Z");
  static final Duration TIMEOUT = Duration.ofSeconds(90);

  static ClusterRow cluster(
      Instant registered, Instant lastSeen, String replica, boolean registrationOpen) {
    return new ClusterRow(
        UUID.randomUUID(),
        UUID.randomUUID(),
        "prod",
        "",
        "",
        "",
        "",
        Map.of(),
        "0.1.0",
        List.of("observe"),
        30,
        registered,
        registered == null ? null : T0.minusSeconds(600),
        replica,
        lastSeen,
        "test",
        T0.minusSeconds(7200),
        T0,
        registrationOpen,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  @Test
  void aClusterDriftsFromConnectedToLaggingToDisconnectedAsHeartbeatsStop() {
    ClusterRow c = cluster(T0.minusSeconds(3600), T0, "replica-a", false);
    assertThat(ClusterStatus.of(c, T0.plusSeconds(30), TIMEOUT)).isEqualTo(ClusterStatus.Connected);
    assertThat(ClusterStatus.of(c, T0.plusSeconds(60), TIMEOUT)).isEqualTo(ClusterStatus.Lagging);
    assertThat(ClusterStatus.of(c, T0.plusSeconds(90), TIMEOUT)).isEqualTo(ClusterStatus.Lagging);
    // Past the 90-second disconnect timeout, even though the stream holder is still recorded.
    assertThat(ClusterStatus.of(c, T0.plusSeconds(91), TIMEOUT))
        .isEqualTo(ClusterStatus.Disconnected);
  }

  @Test
  void noStreamHolderIsDisconnectedAtOnceAndNeverRegisteredIsPendingOrExpired() {
    assertThat(ClusterStatus.of(cluster(T0.minusSeconds(3600), T0, null, false), T0, TIMEOUT))
        .isEqualTo(ClusterStatus.Disconnected);
    assertThat(ClusterStatus.of(cluster(null, null, null, true), T0, TIMEOUT))
        .isEqualTo(ClusterStatus.Pending);
    assertThat(ClusterStatus.of(cluster(null, null, null, false), T0, TIMEOUT))
        .isEqualTo(ClusterStatus.Expired);
  }

  static ClusterRow decided(String acceptance) {
    ClusterRow c = cluster(T0.minusSeconds(3600), T0, "replica-a", false);
    return new ClusterRow(
        c.id(),
        c.orgId(),
        c.name(),
        c.displayName(),
        c.provider(),
        c.region(),
        c.environment(),
        c.labels(),
        c.agentVersion(),
        c.capabilities(),
        c.heartbeatIntervalSeconds(),
        c.registeredAt(),
        c.connectedAt(),
        c.connectedReplica(),
        c.lastSeenAt(),
        c.createdBy(),
        c.createdAt(),
        c.updatedAt(),
        c.registrationOpen(),
        acceptance,
        null,
        null,
        null,
        null,
        null);
  }

  @Test
  void theShownStatusPutsAnAdminsPendingOrNegativeDecisionBeforeTheConnection() {
    assertThat(ClusterStatus.shown(decided("pending"), T0, TIMEOUT))
        .isEqualTo(ClusterStatus.PendingAcceptance);
    assertThat(ClusterStatus.of(decided("pending"), T0, TIMEOUT))
        .as("the connection of a waiting agent is still known")
        .isEqualTo(ClusterStatus.Connected);
    assertThat(ClusterStatus.shown(decided("rejected"), T0, TIMEOUT))
        .isEqualTo(ClusterStatus.Rejected);
    assertThat(ClusterStatus.shown(decided("accepted"), T0, TIMEOUT))
        .isEqualTo(ClusterStatus.Connected);
    assertThat(ClusterStatus.shown(decided(null), T0, TIMEOUT)).isEqualTo(ClusterStatus.Connected);
  }
}
