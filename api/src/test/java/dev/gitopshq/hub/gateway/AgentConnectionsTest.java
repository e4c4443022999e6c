package dev.gitopshq.hub.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Hub acceptance's one check in the gateway: a stream whose cluster waits for an admin is held, but
 * no path that sends work finds it.
 */
class AgentConnectionsTest {
  static final Instant NOW = Instant.parse("2026-11-27T21:00:00Z");
  final UUID org = UUID.randomUUID();

  // Without mappers: recording sessions fails and is logged, as when PostgreSQL is away.
  final AgentConnections connections =
      new AgentConnections(null, null, "replica-1", Clock.fixed(NOW, ZoneOffset.UTC), s -> {});

  AgentSession welcomed(boolean pendingAcceptance) {
    AgentSession s =
        new AgentSession(org, UUID.randomUUID(), UUID.randomUUID(), new RecordingStream(), NOW);
    s.connected(NOW, List.of("observe", "kubernetes.scale"), List.of(), pendingAcceptance);
    connections.add(s);
    return s;
  }

  @Test
  void aStreamThatWaitsForAcceptanceIsHeldButFoundByNoPathThatSendsWork() {
    AgentSession waiting = welcomed(true);
    AgentSession accepted = welcomed(false);

    assertThat(waiting.accepted()).isFalse();
    assertThat(connections.get(waiting.clusterId)).isEmpty();
    assertThat(connections.isConnected(waiting.clusterId)).isFalse();
    assertThat(connections.sessions()).containsExactly(accepted);
    assertThat(connections.get(accepted.clusterId)).contains(accepted);

    assertThat(connections.holds(org, waiting.clusterId)).isTrue();
    assertThat(connections.holds(UUID.randomUUID(), waiting.clusterId))
        .as("another organization's cluster")
        .isFalse();
    assertThat(connections.all()).containsExactlyInAnyOrder(waiting, accepted);
    assertThat(connections.pendingAcceptance()).containsExactly(waiting);
  }

  @Test
  void aRejectedAgentsStreamIsClosedLikeAnyRevokedOne() {
    AgentSession waiting = welcomed(true);

    assertThat(connections.closeTokens(List.of(waiting.tokenId), "agent token revoked"))
        .isEqualTo(1);
    assertThat(waiting.isClosed()).isTrue();
    assertThat(connections.all()).isEmpty();
  }
}
