package dev.gitopshq.activities.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link OpaClient}'s own limits against a stand-in for the far side (the JDK's HTTP/1.1 server):
 * what no real OPA would answer.
 */
class OpaClientTest {
  private HttpServer server;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    byte[] small = "{\"result\": {\"allow\": true}, \"metrics\": {\"timer\": [1, 2]}}".getBytes();
    byte[] huge = new byte[OpaClient.MAX_ANSWER_BYTES + 1];
    Arrays.fill(huge, (byte) ' ');
    server.createContext(
        "/v1/data/small",
        exchange -> {
          exchange.sendResponseHeaders(200, small.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(small);
          }
        });
    // One answer that declares its length, one streamed without it (chunked).
    server.createContext(
        "/v1/data/declared",
        exchange -> {
          exchange.sendResponseHeaders(200, huge.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(huge);
          } catch (IOException clientLeft) {
            // the client stops reading at its bound
          }
        });
    server.createContext(
        "/v1/data/chunked",
        exchange -> {
          exchange.sendResponseHeaders(200, 0);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(huge);
          } catch (IOException clientLeft) {
            // the client stops reading at its bound
          }
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private OpaClient client() {
    return new OpaClient(
        URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
        Duration.ofSeconds(2),
        Duration.ofSeconds(5),
        "t0ken-never-shown",
        OpaClient.Transport.HTTP1);
  }

  @Test
  void readsOnlyTheResultOfAnAnswer() {
    try (OpaClient client = client()) {
      assertThat(client.evaluate("small", null).path("allow").asBoolean()).isTrue();
      assertThat(client.protocol()).isEqualTo("http/1.1");
    }
  }

  @Test
  void anAnswerLargerThanTheBoundIsRefusedUnread() {
    try (OpaClient client = client()) {
      for (String path : new String[] {"declared", "chunked"}) {
        assertThatThrownBy(() -> client.evaluate(path, null))
            .isInstanceOf(OpaException.class)
            .hasMessageContaining("larger than " + OpaClient.MAX_ANSWER_BYTES + " bytes")
            .message()
            .doesNotContain("t0ken-never-shown");
      }
      // The client is still usable afterwards.
      assertThat(client.evaluate("small", null).path("allow").asBoolean()).isTrue();
    }
  }

  @Test
  void theProtocolSettingIsH2cOrHttp1AndNothingElse() {
    assertThat(OpaClient.Transport.parse("h2c")).isEqualTo(OpaClient.Transport.H2C);
    assertThat(OpaClient.Transport.parse("")).isEqualTo(OpaClient.Transport.H2C);
    assertThat(OpaClient.Transport.parse("HTTP1")).isEqualTo(OpaClient.Transport.HTTP1);
    assertThatThrownBy(() -> OpaClient.Transport.parse("http2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'h2c'")
        .hasMessageContaining("'http1'");
  }

  @Test
  void aUrlThatIsNotHttpIsRefused() {
    assertThatThrownBy(() -> new OpaClient(URI.create("ftp://127.0.0.1:8181")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("http or https");
  }
}
