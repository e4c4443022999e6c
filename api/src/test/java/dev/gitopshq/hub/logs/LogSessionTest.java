package dev.gitopshq.hub.logs;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.agent.v1.LogStreamEnded;
import dev.gitopshq.hub.gateway.AgentGateway;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LogSessionTest {
  static final long WINDOW = 1000;
  final AtomicLong now = new AtomicLong(1_000_000_000L);
  final List<Long> grants = new ArrayList<>();
  final List<String> closes = new ArrayList<>();
  final List<LogSession> ended = new ArrayList<>();

  LogSession session(boolean follow) {
    LogSession s =
        new LogSession(
            UUID.randomUUID(),
            UUID.randomUUID(),
            "prod",
            new Actor("member", "m1", "ana@example.com"),
            new LogRequest("demo", "web-1", "", 10, 0, false, false, follow),
            WINDOW,
            Clock.systemUTC(),
            now::get);
    s.attach(
        new AgentGateway.LogHandle() {
          @Override
          public void grant(long bytes) {
            grants.add(bytes);
          }

          @Override
          public void close(String reason) {
            closes.add(reason);
          }
        },
        ended::add);
    return s;
  }

  static ByteString bytes(int n) {
    return ByteString.copyFrom(new byte[n]);
  }

  @Test
  void creditGoesBackToTheAgentOnlyAsTheReaderTakesBytes() throws Exception {
    LogSession s = session(true);
    s.chunk(true, ByteString.EMPTY);
    s.chunk(false, bytes(300));
    s.chunk(false, bytes(300));
    assertThat(grants).isEmpty();
    ByteString first = s.poll(0);
    s.delivered(first.size());
    // A quarter of the window taken: granted back in one message.
    assertThat(grants).containsExactly(300L);
    assertThat(s.queuedBytes()).isEqualTo(300);
  }

  @Test
  void anAgentThatSendsBeyondItsWindowEndsTheSessionInsteadOfGrowingTheBuffer() {
    LogSession s = session(true);
    s.chunk(true, ByteString.EMPTY);
    s.chunk(false, bytes(900));
    s.chunk(false, bytes(200));
    assertThat(s.queuedBytes()).isZero();
    assertThat(s.end().code()).isEqualTo("failed");
    assertThat(closes).singleElement().asString().contains("window");
    assertThat(ended).containsExactly(s);
  }

  @Test
  void aReaderThatLeavesBytesWaitingPastTheStallTimeoutIsCutWithAClearMessage() throws Exception {
    LogSession s = session(true);
    s.chunk(true, ByteString.EMPTY);
    s.chunk(false, bytes(500));
    now.addAndGet(2_000_000_000L);
    assertThat(s.check(3_000_000_000L, Long.MAX_VALUE)).isFalse();
    now.addAndGet(2_000_000_000L);
    assertThat(s.check(3_000_000_000L, Long.MAX_VALUE)).isTrue();
    assertThat(s.end().code()).isEqualTo("reader_too_slow");
    assertThat(s.end().message()).contains("did not take 500 bytes for 3 s");
    assertThat(closes).hasSize(1);
    // The backlog is dropped at once; the reader gets only the end.
    assertThat(s.queuedBytes()).isZero();
    assertThat(s.poll(0)).isNull();
  }

  @Test
  void aReaderThatKeepsPollingIsNeverCutWhenTheLogIsQuiet() throws Exception {
    LogSession s = session(true);
    s.chunk(true, ByteString.EMPTY);
    for (int i = 0; i < 10; i++) {
      now.addAndGet(1_000_000_000L);
      assertThat(s.poll(0)).isNull();
      assertThat(s.check(3_000_000_000L, 60_000_000_000L)).isFalse();
    }
    assertThat(s.end()).isNull();
  }

  @Test
  void aFollowSessionWithoutLinesPastTheIdleTimeoutEnds() {
    LogSession s = session(true);
    s.chunk(true, ByteString.EMPTY);
    now.addAndGet(61_000_000_000L);
    assertThat(s.check(Long.MAX_VALUE, 60_000_000_000L)).isTrue();
    assertThat(s.end().code()).isEqualTo("idle");
    assertThat(s.end().message()).contains("no log line for 60 s");
  }

  @Test
  void aCompletedLogIsDeliveredToTheEndAndEndsOnceTheReaderHasTakenIt() throws Exception {
    LogSession s = session(false);
    s.chunk(true, bytes(10));
    s.ended(LogStreamEnded.newBuilder().setReason(LogStreamEnded.Reason.COMPLETED).build());
    // The agent is done but the reader is not: the session keeps its place and is not audited yet.
    assertThat(ended).isEmpty();
    ByteString rest = s.poll(0);
    assertThat(rest.size()).isEqualTo(10);
    s.delivered(rest.size());
    assertThat(s.end().normal()).isTrue();
    s.readerGone();
    s.readerGone();
    assertThat(ended).containsExactly(s);
    // What onEnd audits: every byte the reader got.
    assertThat(s.deliveredBytes()).isEqualTo(10);
    assertThat(closes).isEmpty();
  }

  @Test
  void aLogThatCompletesBeforeItOpensEndsAtOnceSinceNoReaderWillCome() {
    LogSession s = session(false);
    s.ended(LogStreamEnded.newBuilder().setReason(LogStreamEnded.Reason.COMPLETED).build());
    assertThat(ended).containsExactly(s);
  }

  @Test
  void theAgentStreamEndingIsReportedAsAnAbnormalEnd() {
    LogSession s = session(true);
    s.chunk(true, ByteString.EMPTY);
    s.ended(
        LogStreamEnded.newBuilder()
            .setReason(LogStreamEnded.Reason.CLOSED)
            .setMessage("the agent's stream ended: agent token revoked")
            .build());
    assertThat(s.end().code()).isEqualTo("agent_disconnected");
    assertThat(s.end().normal()).isFalse();
  }

  @Test
  void anAgentsErrorReachesTheViewerWithoutTheClustersInternalAddresses() {
    LogSession s = session(false);
    s.ended(
        LogStreamEnded.newBuilder()
            .setReason(LogStreamEnded.Reason.FAILED)
            .setMessage(
                "Failure executing: GET at: https://10.96.0.1:6443/api/v1/namespaces/demo/pods/"
                    + "web-1/log. Message: dial tcp 172.18.0.2:10250: connection refused.")
            .build());
    assertThat(s.end().code()).isEqualTo("failed");
    assertThat(s.end().message())
        .doesNotContain("10.96.0.1")
        .doesNotContain("/api/v1")
        .doesNotContain("172.18.0.2")
        .contains("connection refused");
  }
}
