package dev.gitopshq.hub.logs;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static dev.gitopshq.hub.HubTestSupport.exec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.testkube.RealKube;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Pod logs through hub and agent on the real API server: kwok serves the namespace demo's growing
 * CRI log for every container there, so a Deployment's pod has a live log to tail and follow.
 */
@Tag("e2e")
class LogStreamingIT {
  static RealKube kube;
  static KubernetesClient admin;
  static HubTestSupport hub;
  static final String NS = KwokLogs.NAMESPACE;
  static final String DEPLOYMENT = "logs-" + UUID.randomUUID().toString().substring(0, 6);
  static final HttpClient http = HttpClient.newHttpClient();
  static String pod;
  static final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    kube = RealKube.shared();
    admin = kube.adminClient();
    hub =
        new HubTestSupport()
            .property("gitopshq.logs.max-per-cluster", 4)
            .property("gitopshq.logs.max-per-user", 3)
            .property("gitopshq.logs.window-bytes", 131072)
            .property("gitopshq.logs.stall-timeout", "5s")
            .start();
    pod = KwokLogs.runningPod(admin, DEPLOYMENT);
    // The log has a few lines before any test reads it.
    appendLines(20, "warmup");
  }

  @AfterAll
  static void stop() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    if (hub != null) {
      hub.close();
    }
    if (admin != null) {
      admin.apps().deployments().inNamespace(NS).withName(DEPLOYMENT).delete();
      admin.close();
    }
  }

  /** Appends CRI lines to the demo namespace's log (what kwok serves for its containers). */
  static void appendLines(int n, String marker) throws Exception {
    KwokLogs.appendLines(kube, n, marker);
  }

  /** A registered cluster with a running agent. */
  static String cluster(String name, String capabilities, String allowedNamespaces)
      throws Exception {
    JsonNode created = hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name)).body();
    String id = created.get("cluster").get("id").asText();
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(
        AgentConfig.AGENT_TOKEN_PATH,
        Files.createTempDirectory("logs").resolve("a.json").toString());
    env.put(AgentConfig.CLUSTER_NAME, name);
    env.put(AgentConfig.CAPABILITIES, capabilities);
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    env.put(AgentConfig.DIAGNOSTICS_ALLOWED_NAMESPACES, allowedNamespaces);
    env.put(AgentConfig.REGISTRATION_TOKEN, created.get("registrationToken").asText());
    KubernetesClient agentClient = kube.adminClient();
    Agent agent = Agent.start(AgentConfig.fromEnv(env), () -> agentClient);
    closeables.add(agentClient);
    closeables.add(agent);
    assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
    return id;
  }

  static HttpResponse<InputStream> open(String clusterId, String query, String token)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(
                URI.create(
                    "http://127.0.0.1:"
                        + hub.httpPort()
                        + "/api/v2/clusters/"
                        + clusterId
                        + "/logs?"
                        + query))
            .header("Authorization", "Bearer " + token)
            .build(),
        HttpResponse.BodyHandlers.ofInputStream());
  }

  static String body(HttpResponse<InputStream> r) throws Exception {
    try (InputStream in = r.body()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** Reads lines on a thread until one matches; the future completes with the lines so far. */
  static CompletableFuture<List<String>> readUntil(
      BufferedReader reader, java.util.function.Predicate<String> stop) {
    return CompletableFuture.supplyAsync(
        () -> {
          List<String> lines = new ArrayList<>();
          try {
            String l;
            while ((l = reader.readLine()) != null) {
              lines.add(l);
              if (stop.test(l)) {
                break;
              }
            }
          } catch (java.io.IOException e) {
            lines.add("IOException " + e);
          }
          return lines;
        });
  }

  static List<JsonNode> audit(String clusterId) {
    Response r = hub.get("/api/v2/audit?action=cluster.logs&limit=100", OWNER_TOKEN);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    List<JsonNode> out = new ArrayList<>();
    r.body()
        .get("items")
        .forEach(
            e -> {
              if (e.get("target").get("id").asText().equals(clusterId)) {
                out.add(e);
              }
            });
    return out;
  }

  static String token(String name) {
    String sa =
        hub.post(
                "/api/v2/service-accounts",
                OWNER_TOKEN,
                Map.of("name", name, "scopes", List.of("clusters:read")))
            .body()
            .get("id")
            .asText();
    Response t =
        hub.post("/api/v2/service-accounts/" + sa + "/tokens", OWNER_TOKEN, Map.of("name", "t"));
    assertThat(t.status()).as(t.raw()).isEqualTo(201);
    return t.body().get("token").asText();
  }

  @Test
  void tailThenFollowThenDownloadAndEveryRefusal() throws Exception {
    String id = cluster("logs-main", "observe,diagnostics.read", "demo");

    // Tail then follow: the last 5 lines first, then lines written after the request.
    appendLines(10, "before");
    HttpResponse<InputStream> follow =
        open(id, "namespace=demo&pod=" + pod + "&tailLines=5&follow=true", OWNER_TOKEN);
    assertThat(follow.statusCode()).isEqualTo(200);
    assertThat(follow.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
    BufferedReader reader =
        new BufferedReader(new InputStreamReader(follow.body(), StandardCharsets.UTF_8));
    List<String> tail = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      tail.add(reader.readLine());
    }
    assertThat(tail).allMatch(l -> l.startsWith("before ") || l.contains("level="));
    CompletableFuture<List<String>> after = readUntil(reader, l -> l.equals("after 2"));
    appendLines(3, "after");
    assertThat(after.get(20, TimeUnit.SECONDS)).contains("after 0", "after 1", "after 2");

    // A download: the same without follow, complete and then closed.
    HttpResponse<InputStream> download =
        open(id, "namespace=demo&pod=" + pod + "&tailLines=7&timestamps=true", OWNER_TOKEN);
    assertThat(download.statusCode()).isEqualTo(200);
    assertThat(download.headers().firstValue("Content-Disposition").orElse(""))
        .contains(pod + ".log");
    List<String> lines = body(download).lines().toList();
    assertThat(lines).hasSize(7).allMatch(l -> l.matches("^\\d{4}-\\d\\d-\\d\\dT.*"));

    // The hub refuses a namespace outside the agent's diagnostics.allowedNamespaces.
    Response outside =
        hub.get("/api/v2/clusters/" + id + "/logs?namespace=payments&pod=" + pod, OWNER_TOKEN);
    assertThat(outside.status()).isEqualTo(403);
    assertThat(outside.raw()).contains("diagnostics.allowedNamespaces");

    // Bad input names the field; a missing pod is 404 from the agent.
    Response bad = hub.get("/api/v2/clusters/" + id + "/logs?namespace=Demo&pod=x", OWNER_TOKEN);
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.raw()).contains("namespace");
    Response missing =
        hub.get("/api/v2/clusters/" + id + "/logs?namespace=demo&pod=nope-123", OWNER_TOKEN);
    assertThat(missing.status()).as(missing.raw()).isEqualTo(404);
    assertThat(missing.raw()).contains("nope-123");

    // Limits: the owner may hold 3 sessions, the cluster 4 (one is the follow above).
    List<HttpResponse<InputStream>> held = new ArrayList<>();
    held.add(open(id, "namespace=demo&pod=" + pod + "&tailLines=1&follow=true", OWNER_TOKEN));
    held.add(open(id, "namespace=demo&pod=" + pod + "&tailLines=1&follow=true", OWNER_TOKEN));
    assertThat(held).allMatch(r -> r.statusCode() == 200);
    HttpResponse<InputStream> fourth =
        open(id, "namespace=demo&pod=" + pod + "&tailLines=1&follow=true", OWNER_TOKEN);
    assertThat(fourth.statusCode()).isEqualTo(429);
    assertThat(body(fourth)).contains("you already have 3 open log sessions");
    String other = token("logs-reader-" + UUID.randomUUID().toString().substring(0, 6));
    held.add(open(id, "namespace=demo&pod=" + pod + "&tailLines=1&follow=true", other));
    assertThat(held.get(2).statusCode()).isEqualTo(200);
    HttpResponse<InputStream> fifth =
        open(id, "namespace=demo&pod=" + pod + "&tailLines=1&follow=true", other);
    assertThat(fifth.statusCode()).isEqualTo(429);
    assertThat(body(fifth)).contains("already has 4 open log sessions");
    for (HttpResponse<InputStream> h : held) {
      h.body().close();
    }
    follow.body().close();

    // Every session is audited when it ends: who, what, when, how many bytes, why.
    hub.bean(LogService.class).flushAudit(Duration.ofSeconds(5));
    await()
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(
            () -> {
              hub.bean(LogService.class).flushAudit(Duration.ofSeconds(5));
              assertThat(hub.bean(LogService.class).openSessions()).isZero();
              List<JsonNode> entries = audit(id);
              assertThat(entries).hasSizeGreaterThanOrEqualTo(6);
              JsonNode dl =
                  entries.stream()
                      .filter(
                          e ->
                              !e.get("details").get("follow").asBoolean()
                                  && e.get("details").get("endReason").asText().equals("completed"))
                      .findFirst()
                      .orElseThrow();
              assertThat(dl.get("details").get("pod").asText()).isEqualTo(pod);
              assertThat(dl.get("details").get("namespace").asText()).isEqualTo("demo");
              assertThat(dl.get("details").get("bytes").asLong()).isPositive();
              assertThat(dl.get("details").get("startedAt").asText()).isNotEmpty();
              assertThat(dl.get("details").get("endedAt").asText()).isNotEmpty();
              assertThat(dl.get("actor").get("name").asText()).isNotEmpty();
              assertThat(entries)
                  .anyMatch(e -> e.get("details").get("endReason").asText().equals("not_found"));
              assertThat(entries)
                  .anyMatch(e -> e.get("details").get("endReason").asText().equals("closed"));
            });

    // An agent without diagnostics.read: the hub refuses before asking it.
    String bare = cluster("logs-bare", "observe", "");
    Response refused =
        hub.get("/api/v2/clusters/" + bare + "/logs?namespace=demo&pod=" + pod, OWNER_TOKEN);
    assertThat(refused.status()).isEqualTo(403);
    assertThat(refused.raw()).contains("diagnostics.read");
  }

  @Test
  void aStalledReaderIsCutWhileAnotherKeepsReceivingAndDeletingTheClusterEndsSessions()
      throws Exception {
    String id = cluster("logs-stall", "observe,diagnostics.read", "");
    String q = "namespace=demo&pod=" + pod + "&tailLines=1&follow=true";
    HttpResponse<InputStream> stalled = open(id, q, OWNER_TOKEN);
    HttpResponse<InputStream> healthy = open(id, q, OWNER_TOKEN);
    assertThat(stalled.statusCode()).isEqualTo(200);
    assertThat(healthy.statusCode()).isEqualTo(200);
    AtomicLong healthyBytes = new AtomicLong();
    CompletableFuture<String> healthyEnd =
        CompletableFuture.supplyAsync(
            () -> {
              byte[] buf = new byte[65536];
              StringBuilder last = new StringBuilder();
              try (InputStream in = healthy.body()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                  healthyBytes.addAndGet(n);
                  last.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                  if (last.length() > 4096) {
                    last.delete(0, last.length() - 4096);
                  }
                }
              } catch (java.io.IOException e) {
                last.append("IOException ").append(e);
              }
              return last.toString();
            });
    // A chatty pod: ~40 MB of CRI lines (~34 MB of log text), far more than the sockets and the
    // window hold.
    String filler = "x".repeat(200);
    long content = 0;
    for (int round = 0; round < 20; round++) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < 8000; i++) {
        String line = "chatty " + round + " " + i + " " + filler + "\n";
        content += line.length();
        b.append(Instant.now()).append(" stdout F ").append(line);
      }
      Files.writeString(kube.podLogFile(NS), b, StandardOpenOption.APPEND);
    }
    long expected = content;
    // The stalled one is cut (its audit entry says why) while the healthy one keeps receiving.
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              hub.bean(LogService.class).flushAudit(Duration.ofSeconds(2));
              assertThat(audit(id))
                  .anyMatch(
                      e -> e.get("details").get("endReason").asText().equals("reader_too_slow"));
            });
    long before = healthyBytes.get();
    appendLines(50, "still-flowing");
    // It receives every line of it, and what comes after.
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () ->
                assertThat(healthyBytes.get())
                    .as(
                        () ->
                            "healthy session bytes; audit: "
                                + audit(id).stream().map(e -> e.get("details").toString()).toList())
                    .isGreaterThanOrEqualTo(expected));
    await().atMost(Duration.ofSeconds(30)).until(() -> healthyBytes.get() > before);
    // The stalled reader finds the notice once it reads again.
    String stalledText = body(stalled);
    assertThat(stalledText).contains("[gitopshq] log session ended: the reader did not take");

    // Deleting the cluster revokes its agent's token: its sessions end with a notice.
    Response deleted = hub.send("DELETE", "/api/v2/clusters/" + id, OWNER_TOKEN, null);
    assertThat(deleted.status()).as(deleted.raw()).isBetween(200, 204);
    assertThat(healthyEnd.get(30, TimeUnit.SECONDS))
        .contains("[gitopshq] log session ended: the agent's stream ended");
  }

  @Test
  void theWebUiGetsTheSameSessionOverAWebSocketAuthenticatedBySubprotocol() throws Exception {
    String id = cluster("logs-ws", "observe,diagnostics.read", "");
    java.util.concurrent.LinkedBlockingQueue<String> texts =
        new java.util.concurrent.LinkedBlockingQueue<>();
    StringBuffer binary = new StringBuffer();
    CompletableFuture<Integer> closed = new CompletableFuture<>();
    java.net.http.WebSocket.Listener listener =
        new java.net.http.WebSocket.Listener() {
          @Override
          public java.util.concurrent.CompletionStage<?> onText(
              java.net.http.WebSocket ws, CharSequence data, boolean last) {
            texts.add(data.toString());
            ws.request(1);
            return null;
          }

          @Override
          public java.util.concurrent.CompletionStage<?> onBinary(
              java.net.http.WebSocket ws, java.nio.ByteBuffer data, boolean last) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            binary.append(new String(b, StandardCharsets.UTF_8));
            ws.request(1);
            return null;
          }

          @Override
          public java.util.concurrent.CompletionStage<?> onClose(
              java.net.http.WebSocket ws, int status, String reason) {
            closed.complete(status);
            return null;
          }
        };
    String base = "ws://127.0.0.1:" + hub.httpPort() + "/api/v2/clusters/" + id + "/logs/ws?";
    appendLines(5, "ws-before");
    java.net.http.WebSocket ws =
        http.newWebSocketBuilder()
            .subprotocols(LogsWebSocket.PROTOCOL, "bearer." + OWNER_TOKEN)
            .buildAsync(
                URI.create(base + "namespace=demo&pod=" + pod + "&tailLines=3&follow=true"),
                listener)
            .get(10, TimeUnit.SECONDS);
    // The server picks the protocol, never echoes the token.
    assertThat(ws.getSubprotocol()).isEqualTo(LogsWebSocket.PROTOCOL);
    assertThat(texts.poll(15, TimeUnit.SECONDS)).contains("\"type\":\"opened\"");
    await().atMost(Duration.ofSeconds(15)).until(() -> binary.toString().contains("ws-before 4"));
    appendLines(2, "ws-after");
    await().atMost(Duration.ofSeconds(15)).until(() -> binary.toString().contains("ws-after 1"));
    ws.sendClose(java.net.http.WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
    await()
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(
            () -> {
              hub.bean(LogService.class).flushAudit(Duration.ofSeconds(2));
              assertThat(audit(id))
                  .anyMatch(e -> e.get("details").get("endReason").asText().equals("closed"));
            });

    // A refusal arrives as an error message and a 4000 + status close code.
    CompletableFuture<Integer> refusedClose = new CompletableFuture<>();
    texts.clear();
    http.newWebSocketBuilder()
        .subprotocols(LogsWebSocket.PROTOCOL, "bearer." + OWNER_TOKEN)
        .buildAsync(
            URI.create(base + "namespace=demo&pod=nope-9"),
            new java.net.http.WebSocket.Listener() {
              @Override
              public java.util.concurrent.CompletionStage<?> onText(
                  java.net.http.WebSocket w, CharSequence data, boolean last) {
                texts.add(data.toString());
                w.request(1);
                return null;
              }

              @Override
              public java.util.concurrent.CompletionStage<?> onClose(
                  java.net.http.WebSocket w, int status, String reason) {
                refusedClose.complete(status);
                return null;
              }
            })
        .get(10, TimeUnit.SECONDS);
    assertThat(refusedClose.get(15, TimeUnit.SECONDS)).isEqualTo(4404);
    assertThat(texts.poll(1, TimeUnit.SECONDS)).contains("\"status\":404").contains("nope-9");

    // Without a token the handshake itself is refused.
    assertThat(
            http.newWebSocketBuilder()
                .subprotocols(LogsWebSocket.PROTOCOL)
                .buildAsync(URI.create(base + "namespace=demo&pod=" + pod), listener)
                .handle(
                    (w, e) ->
                        e != null
                                && e.getCause()
                                    instanceof java.net.http.WebSocketHandshakeException h
                            ? h.getResponse().statusCode()
                            : -1)
                .get(10, TimeUnit.SECONDS))
        .isEqualTo(401);
  }

  /** An open WebSocket log session: its binary log text, and how it was closed. */
  record WsFollow(
      java.net.http.WebSocket ws,
      StringBuffer log,
      java.util.concurrent.LinkedBlockingQueue<String> texts,
      CompletableFuture<String> closed) {}

  static WsFollow wsFollow(String clusterId, String token) throws Exception {
    StringBuffer log = new StringBuffer();
    java.util.concurrent.LinkedBlockingQueue<String> texts =
        new java.util.concurrent.LinkedBlockingQueue<>();
    CompletableFuture<String> closed = new CompletableFuture<>();
    java.net.http.WebSocket ws =
        http.newWebSocketBuilder()
            .subprotocols(LogsWebSocket.PROTOCOL, "bearer." + token)
            .buildAsync(
                URI.create(
                    "ws://127.0.0.1:"
                        + hub.httpPort()
                        + "/api/v2/clusters/"
                        + clusterId
                        + "/logs/ws?namespace=demo&pod="
                        + pod
                        + "&tailLines=2&follow=true"),
                new java.net.http.WebSocket.Listener() {
                  @Override
                  public java.util.concurrent.CompletionStage<?> onText(
                      java.net.http.WebSocket w, CharSequence data, boolean last) {
                    texts.add(data.toString());
                    w.request(1);
                    return null;
                  }

                  @Override
                  public java.util.concurrent.CompletionStage<?> onBinary(
                      java.net.http.WebSocket w, java.nio.ByteBuffer data, boolean last) {
                    byte[] b = new byte[data.remaining()];
                    data.get(b);
                    log.append(new String(b, StandardCharsets.UTF_8));
                    w.request(1);
                    return null;
                  }

                  @Override
                  public java.util.concurrent.CompletionStage<?> onClose(
                      java.net.http.WebSocket w, int status, String reason) {
                    closed.complete(status + " " + reason);
                    return null;
                  }
                })
            .get(10, TimeUnit.SECONDS);
    assertThat(texts.poll(15, TimeUnit.SECONDS)).contains("\"type\":\"opened\"");
    return new WsFollow(ws, log, texts, closed);
  }

  /**
   * Opens an HTTP follow and a WebSocket follow as {@code token}, checks both receive new lines,
   * runs {@code revoke}, and asserts both end within 2 s with {@code reason} as their last word and
   * that both sessions are audited as access_revoked.
   */
  static void streamsEndWhenAccessIsRevoked(
      String clusterId, String token, String marker, Runnable revoke, String reason)
      throws Exception {
    // A freshly connected agent on a loaded machine may miss the 10 s open timeout (504): retry.
    java.util.concurrent.atomic.AtomicReference<HttpResponse<InputStream>> opened =
        new java.util.concurrent.atomic.AtomicReference<>();
    await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () -> {
              HttpResponse<InputStream> r =
                  open(clusterId, "namespace=demo&pod=" + pod + "&tailLines=2&follow=true", token);
              if (r.statusCode() == 504) {
                r.body().close();
                return false;
              }
              opened.set(r);
              return true;
            });
    HttpResponse<InputStream> follow = opened.get();
    assertThat(follow.statusCode()).isEqualTo(200);
    BufferedReader reader =
        new BufferedReader(new InputStreamReader(follow.body(), StandardCharsets.UTF_8));
    WsFollow ws = wsFollow(clusterId, token);
    CompletableFuture<List<String>> flowing = readUntil(reader, l -> l.equals(marker + " 1"));
    appendLines(2, marker);
    assertThat(flowing.get(20, TimeUnit.SECONDS)).contains(marker + " 1");
    await().atMost(Duration.ofSeconds(15)).until(() -> ws.log().toString().contains(marker + " 1"));

    CompletableFuture<List<String>> rest = readUntil(reader, l -> false);
    revoke.run();
    long revokedAt = System.nanoTime();
    // The HTTP reader's last line says why; the stream then ends.
    List<String> last = rest.get(2, TimeUnit.SECONDS);
    String ws2 = ws.closed().get(2, TimeUnit.SECONDS);
    assertThat(Duration.ofNanos(System.nanoTime() - revokedAt)).isLessThan(Duration.ofSeconds(2));
    assertThat(last).isNotEmpty();
    assertThat(last.get(last.size() - 1))
        .isEqualTo("[gitopshq] log session ended: access revoked: " + reason);
    // The WebSocket: an ended message, then close 1008 with the reason as its text.
    assertThat(ws2).isEqualTo("1008 access revoked: " + reason);
    assertThat(ws.texts())
        .anyMatch(
            t ->
                t.contains("\"reason\":\"access_revoked\"")
                    && t.contains("access revoked: " + reason));
    // Nothing flows afterwards: a line written now reaches neither.
    appendLines(1, marker + "-after");
    Thread.sleep(500);
    assertThat(ws.log().toString()).doesNotContain(marker + "-after");
    // Both sessions are audited as cut, with the reason.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              hub.bean(LogService.class).flushAudit(Duration.ofSeconds(2));
              assertThat(
                      audit(clusterId).stream()
                          .filter(
                              e ->
                                  e.get("details")
                                          .get("endReason")
                                          .asText()
                                          .equals("access_revoked")
                                      && e.get("details")
                                          .get("endMessage")
                                          .asText()
                                          .equals("access revoked: " + reason)))
                  .hasSize(2);
            });
    follow.body().close();
  }

  @Test
  void revokingTheTokenRemovingTheMemberOrSigningOutEndsOpenStreamsWithinTwoSeconds()
      throws Exception {
    // A service account's token, revoked.
    String saCluster = cluster("logs-revoke-sa", "observe,diagnostics.read", "");
    String sa =
        hub.post(
                "/api/v2/service-accounts",
                OWNER_TOKEN,
                Map.of(
                    "name",
                    "logs-revoked-" + UUID.randomUUID().toString().substring(0, 6),
                    "scopes",
                    List.of("clusters:read")))
            .body()
            .get("id")
            .asText();
    JsonNode saToken =
        hub.post("/api/v2/service-accounts/" + sa + "/tokens", OWNER_TOKEN, Map.of("name", "t"))
            .body();
    streamsEndWhenAccessIsRevoked(
        saCluster,
        saToken.get("token").asText(),
        "sa-revoke",
        () ->
            assertThat(
                    hub.send(
                            "DELETE",
                            "/api/v2/service-accounts/"
                                + sa
                                + "/tokens/"
                                + saToken.get("id").asText(),
                            OWNER_TOKEN,
                            null)
                        .status())
                .isEqualTo(200),
        "token revoked");

    // A member's own API token, and then the member removed.
    String memberCluster = cluster("logs-revoke-member", "observe,diagnostics.read", "");
    String email = "logs-" + UUID.randomUUID().toString().substring(0, 6) + "@example.com";
    String member =
        hub.post(
                "/api/v2/members",
                OWNER_TOKEN,
                Map.of("email", email, "name", "Leaving", "role", "viewer"))
            .body()
            .get("id")
            .asText();
    hub.grantEverything(member); // a viewer reads the cluster's logs through a grant
    String memberToken =
        hub.post("/api/v2/members/" + member + "/tokens", OWNER_TOKEN, Map.of("name", "t"))
            .body()
            .get("token")
            .asText();
    // An SSO session of the same member (as a sign-in would store it).
    String session = "ghqo_" + "ab".repeat(32);
    exec(
        "insert into member_sessions (id, org_id, member_id, token_hash, client, created_at,"
            + " expires_at) select ?, org_id, id, ?, 'browser', now(), now() + interval '1 hour'"
            + " from members where id = ?",
        UUID.randomUUID(),
        dev.gitopshq.activities.tokens.Tokens.sha256Hex(session),
        UUID.fromString(member));
    // Signing out ends the session's streams (and not the member's token's).
    streamsEndWhenAccessIsRevoked(
        memberCluster,
        session,
        "signout",
        () -> assertThat(hub.post("/api/v2/auth/logout", session, null).status()).isEqualTo(204),
        "session revoked");
    String otherCluster = cluster("logs-revoke-removed", "observe,diagnostics.read", "");
    streamsEndWhenAccessIsRevoked(
        otherCluster,
        memberToken,
        "removed",
        () ->
            assertThat(hub.send("DELETE", "/api/v2/members/" + member, OWNER_TOKEN, null).status())
                .isEqualTo(204),
        "member removed");
  }
}
