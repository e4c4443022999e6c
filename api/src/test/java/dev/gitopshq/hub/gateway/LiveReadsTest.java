package dev.gitopshq.hub.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.ResourceDetail;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** Live reads wait for the asked cluster's answer only, time out, and are bounded in number. */
class LiveReadsTest {
  static AgentMessage answer(String id) {
    return AgentMessage.newBuilder()
        .setResourceDetail(
            ResourceDetail.newBuilder()
                .setRequestId(id)
                .setOutcome(ResourceDetail.Outcome.FOUND)
                .setYaml("kind: Pod"))
        .build();
  }

  @Test
  void onlyTheAskedClusterCanAnswer() throws Exception {
    LiveReads reads = new LiveReads();
    UUID asked = UUID.randomUUID();
    var future = reads.expect(asked, "r1", Duration.ofSeconds(5));

    assertThat(reads.complete(UUID.randomUUID(), "r1", answer("r1"))).isFalse();
    assertThat(future).isNotDone();
    assertThat(reads.complete(asked, "r1", answer("r1"))).isTrue();
    assertThat(future.get().getResourceDetail().getYaml()).isEqualTo("kind: Pod");
    assertThat(reads.size()).isZero();
    assertThat(reads.complete(asked, "r1", answer("r1"))).as("a second answer").isFalse();
  }

  @Test
  void anUnansweredReadTimesOutAndIsForgotten() {
    LiveReads reads = new LiveReads();
    var future = reads.expect(UUID.randomUUID(), "r2", Duration.ofMillis(50));
    assertThatThrownBy(future::get)
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(TimeoutException.class);
    assertThat(reads.size()).isZero();
  }

  @Test
  void atMostSoManyReadsWait() {
    LiveReads reads = new LiveReads();
    UUID cluster = UUID.randomUUID();
    for (int i = 0; i < LiveReads.MAX_PENDING; i++) {
      reads.expect(cluster, "r" + i, Duration.ofMinutes(1));
    }
    assertThatThrownBy(() -> reads.expect(cluster, "one-more", Duration.ofMinutes(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("too many");
  }
}
