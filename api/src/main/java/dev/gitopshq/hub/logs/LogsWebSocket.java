package dev.gitopshq.hub.logs;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.web.socket.BinaryMessage;
import org.springframework.web.socket.CloseStatus;
import org.springframework.web.socket.SubProtocolCapable;
import org.springframework.web.socket.TextMessage;
import org.springframework.web.socket.WebSocketHandler;
import org.springframework.web.socket.WebSocketSession;
import org.springframework.web.socket.config.annotation.EnableWebSocket;
import org.springframework.web.socket.config.annotation.WebSocketConfigurer;
import org.springframework.web.socket.config.annotation.WebSocketHandlerRegistry;
import org.springframework.web.socket.handler.AbstractWebSocketHandler;
import org.springframework.web.socket.server.HandshakeInterceptor;
import org.springframework.web.util.UriComponentsBuilder;

/**
 * {@code GET /api/v2/clusters/{id}/logs/ws}: the same log session as the chunked endpoint, over a
 * WebSocket for the web UI. The bearer token travels as the subprotocol {@code bearer.<token>} next
 * to {@code gitopshq.logs.v1} (never in the URL). Log bytes arrive as binary frames; text frames
 * are JSON: {@code {"type":"opened","sessionId":…}}, then at the end {@code
 * {"type":"ended","reason":…,"message":…}} or, when the session could not start, {@code
 * {"type":"error","status":403,"message":…}}, after which the server closes (4000 + status for
 * errors, 1008 with the reason as close text when the caller's token, session or membership was
 * revoked while it ran, 4404 when the cluster stopped being visible to them, 1000 otherwise).
 */
@Configuration
@EnableWebSocket
public class LogsWebSocket extends AbstractWebSocketHandler
    implements WebSocketConfigurer, SubProtocolCapable {
  static final String PROTOCOL = "gitopshq.logs.v1";
  private static final Logger log = LoggerFactory.getLogger(LogsWebSocket.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CALLER = "gitopshq.caller";
  private static final String SESSION = "gitopshq.logSession";

  private final LogService logs;

  public LogsWebSocket(LogService logs) {
    this.logs = logs;
  }

  @Override
  public void registerWebSocketHandlers(WebSocketHandlerRegistry registry) {
    registry
        .addHandler(this, "/api/v2/clusters/*/logs/ws")
        .addInterceptors(
            new HandshakeInterceptor() {
              @Override
              public boolean beforeHandshake(
                  ServerHttpRequest request,
                  ServerHttpResponse response,
                  WebSocketHandler wsHandler,
                  Map<String, Object> attributes) {
                try {
                  attributes.put(CALLER, Authz.require(Permission.CLUSTERS_READ));
                  return true;
                } catch (ApiException e) {
                  response.setStatusCode(HttpStatusCode.valueOf(e.error().status()));
                  return false;
                }
              }

              @Override
              public void afterHandshake(
                  ServerHttpRequest request,
                  ServerHttpResponse response,
                  WebSocketHandler wsHandler,
                  Exception exception) {}
            });
  }

  @Override
  public List<String> getSubProtocols() {
    return List.of(PROTOCOL);
  }

  @Override
  public void afterConnectionEstablished(WebSocketSession ws) {
    // Opening waits for the agent; the pump blocks on the socket: neither on Tomcat's threads.
    Thread.ofVirtual().name("log-ws-" + ws.getId()).start(() -> serve(ws));
  }

  private void serve(WebSocketSession ws) {
    HubPrincipal caller = (HubPrincipal) ws.getAttributes().get(CALLER);
    LogSession session;
    try {
      URI uri = ws.getUri();
      String[] path = uri.getPath().split("/");
      // /api/v2/clusters/{id}/logs/ws
      UUID clusterId;
      try {
        clusterId = UUID.fromString(path[4]);
      } catch (RuntimeException e) {
        throw ApiException.invalid("id", "must be a UUID");
      }
      logs.cluster(caller, clusterId);
      var q = UriComponentsBuilder.fromUri(uri).build().getQueryParams();
      LogRequest request =
          LogRequest.of(
              decoded(q.getFirst("namespace")),
              decoded(q.getFirst("pod")),
              decoded(q.getFirst("container")),
              number(q.getFirst("tailLines"), "tailLines"),
              number(q.getFirst("sinceSeconds"), "sinceSeconds"),
              "true".equals(q.getFirst("timestamps")),
              "true".equals(q.getFirst("previous")),
              "true".equals(q.getFirst("follow")));
      session = logs.open(caller, clusterId, request);
    } catch (ApiException e) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("type", "error");
      m.put("status", e.error().status());
      m.put("message", e.error().message());
      if (e.error().errors() != null) {
        m.put("errors", e.error().errors());
      }
      sendAndClose(ws, m, new CloseStatus(4000 + e.error().status(), e.error().error()));
      return;
    } catch (RuntimeException e) {
      log.warn("log websocket failed to open: {}", e.toString());
      sendAndClose(
          ws,
          Map.of("type", "error", "status", 500, "message", "the log session could not start"),
          CloseStatus.SERVER_ERROR);
      return;
    }
    ws.getAttributes().put(SESSION, session);
    try {
      text(ws, Map.of("type", "opened", "sessionId", session.id()));
      LogsController.pump(
          session,
          bytes -> ws.sendMessage(new BinaryMessage(ByteBuffer.wrap(bytes))),
          () -> {},
          false);
      LogSession.End end = session.end();
      sendAndClose(
          ws,
          Map.of(
              "type",
              "ended",
              "reason",
              end == null ? "closed" : end.code(),
              "message",
              end == null ? "" : end.message()),
          closeStatus(end));
    } catch (IOException | RuntimeException e) {
      // The browser went away.
    } finally {
      session.readerGone();
    }
  }

  /**
   * How an ended session closes: 1008 (policy violation) with the reason as its text when the
   * caller's credential no longer holds ("access revoked: token revoked"), 4404 {@code not_found}
   * when the cluster is no longer visible to them (as for an unknown cluster at open), 1000
   * otherwise.
   */
  static CloseStatus closeStatus(LogSession.End end) {
    if (end == null) {
      return CloseStatus.NORMAL;
    }
    return switch (end.code()) {
      case LogSession.End.ACCESS_REVOKED ->
          CloseStatus.POLICY_VIOLATION.withReason(closeReason(end.message()));
      case LogSession.End.CLUSTER_HIDDEN -> new CloseStatus(4404, "not_found");
      default -> CloseStatus.NORMAL;
    };
  }

  /** A close reason fits in 123 bytes of UTF-8. */
  static String closeReason(String message) {
    String r = message;
    while (r.getBytes(StandardCharsets.UTF_8).length > 123) {
      r = r.substring(0, r.length() - 1);
    }
    return r;
  }

  private static String decoded(String v) {
    return v == null ? null : URLDecoder.decode(v, StandardCharsets.UTF_8);
  }

  private static Long number(String v, String field) {
    if (v == null || v.isEmpty()) {
      return null;
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw ApiException.invalid(field, "must be a whole number");
    }
  }

  private static void text(WebSocketSession ws, Map<String, ?> m) throws IOException {
    ws.sendMessage(new TextMessage(JSON.writeValueAsString(m)));
  }

  private static void sendAndClose(WebSocketSession ws, Map<String, ?> m, CloseStatus status) {
    try {
      if (ws.isOpen()) {
        text(ws, m);
        ws.close(status);
      }
    } catch (IOException | RuntimeException e) {
      // Nothing more to tell a browser that left.
    }
  }

  @Override
  public void afterConnectionClosed(WebSocketSession ws, CloseStatus status) {
    Object s = ws.getAttributes().get(SESSION);
    if (s instanceof LogSession session) {
      session.readerGone();
    }
  }
}
