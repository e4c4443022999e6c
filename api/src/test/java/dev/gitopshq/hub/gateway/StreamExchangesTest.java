package dev.gitopshq.hub.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.LogStreamEnded;
import dev.gitopshq.agent.v1.ResourceDetail;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Questions on agents' streams wait for the asked cluster's answer only, time out, and are bounded
 * in number; log sessions take messages only from the stream they were opened on.
 */
class StreamExchangesTest {
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
    StreamExchanges reads = new StreamExchanges();
    UUID asked = UUID.randomUUID();
    var future = reads.expect(asked, "r1", Duration.ofSeconds(5));

    assertThat(reads.complete(UUID.randomUUID(), "r1", answer("r1"))).isFalse();
    assertThat(future).isNotDone();
    assertThat(reads.complete(asked, "r1", answer("r1"))).isTrue();
    assertThat(future.get().getResourceDetail().getYaml()).isEqualTo("kind: Pod");
    assertThat(reads.questions()).isZero();
    assertThat(reads.complete(asked, "r1", answer("r1"))).as("a second answer").isFalse();
  }

  @Test
  void anUnansweredReadTimesOutAndIsForgotten() {
    StreamExchanges reads = new StreamExchanges();
    var future = reads.expect(UUID.randomUUID(), "r2", Duration.ofMillis(50));
    assertThatThrownBy(future::get)
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(TimeoutException.class);
    assertThat(reads.questions()).isZero();
  }

  @Test
  void atMostSoManyReadsWait() {
    StreamExchanges reads = new StreamExchanges();
    UUID cluster = UUID.randomUUID();
    for (int i = 0; i < StreamExchanges.MAX_QUESTIONS; i++) {
      reads.expect(cluster, "r" + i, Duration.ofMinutes(1));
    }
    assertThatThrownBy(() -> reads.expect(cluster, "one-more", Duration.ofMinutes(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("too many");
  }

  @Test
  void aLogSessionHearsOnlyItsOwnStreamAndEndsWithIt() {
    StreamExchanges exchanges = new StreamExchanges();
    AgentSession stream = session();
    AgentSession other = session();
    List<String> ended = new ArrayList<>();
    LogReceiver receiver =
        new LogReceiver() {
          @Override
          public void chunk(boolean opened, ByteString data) {}

          @Override
          public void ended(LogStreamEnded end) {
            ended.add(end.getMessage());
          }
        };
    assertThat(exchanges.openLog("s1", stream, receiver)).isTrue();
    assertThat(exchanges.openLog("s1", stream, receiver)).as("the id is taken").isFalse();
    assertThat(exchanges.log(other, "s1")).isNull();
    assertThat(exchanges.log(stream, "s1")).isSameAs(receiver);
    assertThat(exchanges.complete(stream.clusterId, "s1", answer("s1")))
        .as("a log session is no question")
        .isFalse();
    exchanges.streamEnded(other, "not this one");
    assertThat(ended).isEmpty();
    exchanges.streamEnded(stream, "the agent's stream ended");
    assertThat(ended).containsExactly("the agent's stream ended");
    assertThat(exchanges.logSessions()).isZero();
    assertThat(exchanges.log(stream, "s1")).isNull();
  }

  static AgentSession session() {
    return new AgentSession(
        UUID.randomUUID(), UUID.randomUUID(), UUID.randomUUID(), null, Instant.now());
  }
}
