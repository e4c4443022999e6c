package dev.gitopshq.hub.logs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.web.socket.CloseStatus;

class LogsWebSocketTest {

  @Test
  void aHiddenClusterClosesAs4404LikeAnUnknownOneAndARevokedCredentialAs1008WithTheReason() {
    assertThat(
            LogsWebSocket.closeStatus(
                new LogSession.End(
                    LogSession.End.CLUSTER_HIDDEN,
                    "access revoked: cluster c is no longer visible to you")))
        .isEqualTo(new CloseStatus(4404, "not_found"));
    assertThat(
            LogsWebSocket.closeStatus(
                new LogSession.End(LogSession.End.ACCESS_REVOKED, "access revoked: token revoked")))
        .isEqualTo(new CloseStatus(1008, "access revoked: token revoked"));
    assertThat(LogsWebSocket.closeStatus(new LogSession.End("idle", "no log line for 600 s")))
        .isEqualTo(CloseStatus.NORMAL);
    assertThat(LogsWebSocket.closeStatus(null)).isEqualTo(CloseStatus.NORMAL);
  }

  @Test
  void theAccessRecheckIntervalDefaultsTo15SecondsAndStaysBounded() {
    assertThat(props(null).accessRecheckInterval()).hasSeconds(15);
    assertThat(props(Duration.ofMillis(10)).accessRecheckInterval()).hasSeconds(15);
    assertThat(props(Duration.ofSeconds(2)).accessRecheckInterval()).hasSeconds(2);
    assertThat(props(Duration.ofHours(1)).accessRecheckInterval()).hasMinutes(5);
  }

  private static LogsProperties props(Duration accessRecheck) {
    return new LogsProperties(0, 0, 0, 0, null, null, null, null, accessRecheck);
  }
}
