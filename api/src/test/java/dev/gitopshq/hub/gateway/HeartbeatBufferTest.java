package dev.gitopshq.hub.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.anyCollection;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.reset;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

import dev.gitopshq.activities.cluster.ClusterMapper;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

class HeartbeatBufferTest {
  private final ClusterMapper mapper = mock(ClusterMapper.class);
  private final HeartbeatBuffer buffer = new HeartbeatBuffer(mapper);

  @Test
  @SuppressWarnings("unchecked")
  void thousandsOfHeartbeatsBecomeOneStatementWithTheNewestBeatPerCluster() {
    UUID org = UUID.randomUUID();
    List<UUID> clusters = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      clusters.add(UUID.randomUUID());
    }
    Instant t0 = Instant.parse("2026-11-22T10:00:00Z");
    for (int beat = 0; beat < 10; beat++) {
      for (UUID c : clusters) {
        buffer.record(org, c, t0.plusSeconds(beat));
      }
    }

    assertThat(buffer.flush()).isEqualTo(100);

    ArgumentCaptor<Collection<ClusterMapper.Heartbeat>> batch =
        ArgumentCaptor.forClass(Collection.class);
    verify(mapper, times(1)).recordHeartbeats(batch.capture());
    assertThat(batch.getValue()).hasSize(100).allMatch(h -> h.seenAt().equals(t0.plusSeconds(9)));
    assertThat(buffer.flush()).as("nothing left to write").isZero();
  }

  @Test
  void aFailedWriteKeepsTheBeatsForTheNextFlush() {
    UUID org = UUID.randomUUID();
    buffer.record(org, UUID.randomUUID(), Instant.now());
    doThrow(new IllegalStateException("database down"))
        .when(mapper)
        .recordHeartbeats(anyCollection());

    assertThat(buffer.flush()).isZero();

    reset(mapper);
    assertThat(buffer.flush()).isEqualTo(1);
  }
}
