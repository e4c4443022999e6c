package dev.gitopshq.activities.notify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The webhook against a real HTTP receiver on loopback that checks the signature itself. */
class WebhookNotifierTest {
  static final String SECRET = "s3cret-for-the-receiver-only";
  HttpServer server;
  final List<String> bodies = new CopyOnWriteArrayList<>();
  final List<String> verdicts = new CopyOnWriteArrayList<>();
  final AtomicInteger status = new AtomicInteger(204);

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/hook",
        exchange -> {
          byte[] body = exchange.getRequestBody().readAllBytes();
          Mac mac = hmac();
          String expected = "sha256=" + HexFormat.of().formatHex(mac.doFinal(body));
          String got = exchange.getRequestHeaders().getFirst(WebhookNotifier.SIGNATURE_HEADER);
          verdicts.add(expected.equals(got) ? "valid" : "invalid");
          bodies.add(
              exchange.getRequestHeaders().getFirst(WebhookNotifier.EVENT_HEADER)
                  + " "
                  + exchange.getRequestHeaders().getFirst(WebhookNotifier.DELIVERY_HEADER)
                  + " "
                  + new String(body, StandardCharsets.UTF_8));
          exchange.sendResponseHeaders(status.get(), -1);
          exchange.close();
        });
    server.start();
  }

  static Mac hmac() {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return mac;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  WebhookNotifier notifier(String secret) {
    return new WebhookNotifier(
        "http://127.0.0.1:" + server.getAddress().getPort() + "/hook", secret, Clock.systemUTC());
  }

  @Test
  void sendsSignedJsonEventsTheReceiverCanVerify() {
    notifier(SECRET).send("c1:command.failed", "command.failed", Map.of("summary", "scale failed"));

    assertThat(verdicts).containsExactly("valid");
    assertThat(bodies.get(0))
        .startsWith("command.failed c1:command.failed ")
        .contains("\"event\":\"command.failed\"")
        .contains("\"summary\":\"scale failed\"");
  }

  @Test
  void aSignatureMadeWithAnotherSecretDoesNotVerify() {
    notifier("another-secret-of-16-chars").send("e2", "approval.requested", Map.of());
    assertThat(verdicts).containsExactly("invalid");
  }

  @Test
  void aReceiverErrorThrowsSoTheActivityRetries() {
    status.set(503);
    assertThatThrownBy(() -> notifier(SECRET).send("e3", "agent.disconnected", Map.of()))
        .hasMessageContaining("503")
        .hasMessageNotContaining(SECRET);
  }

  @Test
  void aUrlWithoutASecretIsAConfigurationError() {
    assertThatThrownBy(() -> new WebhookNotifier("http://127.0.0.1:1/x", "", Clock.systemUTC()))
        .hasMessageContaining("GITOPSHQ_WEBHOOK_SECRET");
  }
}
