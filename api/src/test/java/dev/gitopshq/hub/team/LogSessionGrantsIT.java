package dev.gitopshq.hub.team;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.hub.logs.KwokLogs;
import dev.gitopshq.hub.logs.LogService;
import dev.gitopshq.testkube.RealKube;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An open log session follows its caller's access to the cluster, not only the access they had when
 * it opened: when a grant is revoked, the member leaves the team or the cluster's labels move out
 * of the grant's selector, the member's WebSocket closes with 4404 (as for an unknown cluster) and
 * their HTTP follow ends with a last notice line, the agent stops reading, and the sessions of
 * callers who still see the cluster go on. The hub re-checks every 2 s here ({@code
 * gitopshq.logs.access-recheck-interval}); the timeouts are generous for a loaded machine. In an
 * organization of its own, with its own agents on the real API server (kwok serves the namespace
 * demo's growing CRI log for every container there).
 */
@Tag("e2e")
class LogSessionGrantsIT {
  static final String NS = KwokLogs.NAMESPACE;
  static final String PROTOCOL = "gitopshq.logs.v1";
  static final String DEPLOYMENT = "grants-" + UUID.randomUUID().toString().substring(0, 6);
  static final Duration BOUND = Duration.ofSeconds(30);
  static final HttpClient http = HttpClient.newHttpClient();
  static final List<AutoCloseable> closeables = new ArrayList<>();
  static RealKube kube;
  static KubernetesClient admin;
  static HubTestSupport hub;
  static GrantFixtures org;
  static String s;
  static String pod;

  @BeforeAll
  static void start() throws Exception {
    kube = RealKube.shared();
    admin = kube.adminClient();
    hub = new HubTestSupport().property("gitopshq.logs.access-recheck-interval", "2s").start();
    org = new GrantFixtures(hub, "log-grants");
    s = UUID.randomUUID().toString().substring(0, 8);
    pod = KwokLogs.runningPod(admin, DEPLOYMENT);
    appendLines(5, "warmup");
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

  static void appendLines(int n, String marker) throws IOException {
    KwokLogs.appendLines(kube, n, marker);
  }

  /** A cluster of the test's organization with these labels and a running agent. */
  record Cluster(String id, Agent agent) {}

  static Cluster cluster(String name, Map<String, String> labels) throws Exception {
    Response created =
        hub.post("/api/v2/clusters", org.owner, Map.of("name", name, "labels", labels));
    assertThat(created.status()).as(created.raw()).isEqualTo(201);
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(
        AgentConfig.AGENT_TOKEN_PATH,
        Files.createTempDirectory("log-grants").resolve("a.json").toString());
    env.put(AgentConfig.CLUSTER_NAME, name);
    env.put(AgentConfig.CAPABILITIES, "observe,diagnostics.read");
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    env.put(AgentConfig.DIAGNOSTICS_ALLOWED_NAMESPACES, "");
    env.put(AgentConfig.REGISTRATION_TOKEN, created.body().get("registrationToken").asText());
    KubernetesClient agentClient = kube.adminClient();
    Agent agent = Agent.start(AgentConfig.fromEnv(env), () -> agentClient);
    closeables.add(agentClient);
    closeables.add(agent);
    assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
    return new Cluster(created.body().get("cluster").get("id").asText(), agent);
  }

  /** A member (organization role member) in a new team: member id, team id, token. */
  record Member(String id, String team, String token) {}

  static Member member(String teamName) {
    String id = org.member("member");
    return new Member(id, org.team(teamName + "-" + s, id), org.token(id));
  }

  static String serviceAccountToken(AtomicReference<String> tokenId) {
    String sa =
        GrantFixtures.id(
            hub.post(
                "/api/v2/service-accounts",
                org.owner,
                Map.of("name", "logs-" + s, "scopes", List.of("clusters:read"))),
            201);
    Response t =
        hub.post("/api/v2/service-accounts/" + sa + "/tokens", org.owner, Map.of("name", "t"));
    assertThat(t.status()).as(t.raw()).isEqualTo(201);
    tokenId.set(sa + "/tokens/" + t.body().get("id").asText());
    return t.body().get("token").asText();
  }

  /** An open WebSocket follow: the log text it received, its text messages, how it closed. */
  record WsFollow(
      StringBuffer log, LinkedBlockingQueue<String> texts, CompletableFuture<String> closed) {}

  static WsFollow wsFollow(String clusterId, String token) throws Exception {
    URI uri =
        URI.create(
            "ws://127.0.0.1:"
                + hub.httpPort()
                + "/api/v2/clusters/"
                + clusterId
                + "/logs/ws?namespace="
                + NS
                + "&pod="
                + pod
                + "&tailLines=1&follow=true");
    // A freshly connected agent on a loaded machine may miss the 10 s open timeout: try again.
    AtomicReference<WsFollow> opened = new AtomicReference<>();
    await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () -> {
              WsFollow f = tryWsFollow(uri, token);
              opened.set(f);
              return f != null;
            });
    return opened.get();
  }

  /** One try: the open follow, or null when the agent did not open the log in time (504). */
  static WsFollow tryWsFollow(URI uri, String token) throws Exception {
    WsFollow f =
        new WsFollow(new StringBuffer(), new LinkedBlockingQueue<>(), new CompletableFuture<>());
    http.newWebSocketBuilder()
        .subprotocols(PROTOCOL, "bearer." + token)
        .buildAsync(
            uri,
            new WebSocket.Listener() {
              @Override
              public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                f.texts().add(data.toString());
                w.request(1);
                return null;
              }

              @Override
              public CompletionStage<?> onBinary(WebSocket w, ByteBuffer data, boolean last) {
                byte[] b = new byte[data.remaining()];
                data.get(b);
                f.log().append(new String(b, StandardCharsets.UTF_8));
                w.request(1);
                return null;
              }

              @Override
              public CompletionStage<?> onClose(WebSocket w, int status, String reason) {
                f.closed().complete(status + " " + reason);
                return null;
              }
            })
        .get(15, TimeUnit.SECONDS);
    String first = f.texts().poll(30, TimeUnit.SECONDS);
    if (first != null && first.contains("\"type\":\"opened\"")) {
      return f;
    }
    assertThat(first).as("the session opens or the agent times out").contains("\"status\":504");
    f.closed().get(10, TimeUnit.SECONDS);
    return null;
  }

  /** An open HTTP follow: lines read so far (on a thread), completes when the stream ends. */
  static CompletableFuture<List<String>> httpFollow(
      String clusterId, String token, List<String> lines) throws Exception {
    AtomicReference<HttpResponse<InputStream>> opened = new AtomicReference<>();
    await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () -> {
              HttpResponse<InputStream> r =
                  http.send(
                      HttpRequest.newBuilder(
                              URI.create(
                                  "http://127.0.0.1:"
                                      + hub.httpPort()
                                      + "/api/v2/clusters/"
                                      + clusterId
                                      + "/logs?namespace="
                                      + NS
                                      + "&pod="
                                      + pod
                                      + "&tailLines=1&follow=true"))
                          .header("Authorization", "Bearer " + token)
                          .build(),
                      HttpResponse.BodyHandlers.ofInputStream());
              if (r.statusCode() == 504) {
                r.body().close();
                return false;
              }
              opened.set(r);
              return true;
            });
    assertThat(opened.get().statusCode()).isEqualTo(200);
    BufferedReader reader =
        new BufferedReader(new InputStreamReader(opened.get().body(), StandardCharsets.UTF_8));
    return CompletableFuture.supplyAsync(
        () -> {
          try (reader) {
            String l;
            while ((l = reader.readLine()) != null) {
              lines.add(l);
            }
          } catch (IOException e) {
            lines.add("IOException " + e);
          }
          return lines;
        });
  }

  static List<String> auditEndReasons(String clusterId) {
    try {
      hub.bean(LogService.class).flushAudit(Duration.ofSeconds(2));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Response r = hub.get("/api/v2/audit?action=cluster.logs&limit=100", org.owner);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    List<String> out = new ArrayList<>();
    for (JsonNode e : r.body().get("items")) {
      if (e.get("target").get("id").asText().equals(clusterId)) {
        out.add(e.get("details").get("endReason").asText());
      }
    }
    return out;
  }

  @Test
  void revokingTheGrantClosesTheMembersWebSocketWith4404AndStopsTheAgentWhileOthersGoOn()
      throws Exception {
    Cluster c = cluster("grant-" + s, Map.of("tier", "grant-" + s));
    Member m = member("grant");
    String grant = org.clusterGrant(m.team(), "member", Map.of("tier", "grant-" + s));
    AtomicReference<String> saTokenPath = new AtomicReference<>();
    String saToken = serviceAccountToken(saTokenPath);

    WsFollow member = wsFollow(c.id(), m.token());
    WsFollow owner = wsFollow(c.id(), org.owner);
    WsFollow account = wsFollow(c.id(), saToken);
    appendLines(2, "grant-before");
    for (WsFollow f : List.of(member, owner, account)) {
      await().atMost(BOUND).until(() -> f.log().toString().contains("grant-before 1"));
    }
    assertThat(c.agent().openLogStreams()).isEqualTo(3);

    Response revoked = hub.send("DELETE", "/api/v2/grants/" + grant, org.owner, null);
    assertThat(revoked.status()).as(revoked.raw()).isEqualTo(204);

    // As at open for a cluster the caller cannot see: 4404, after an ended message saying why.
    assertThat(member.closed().get(BOUND.toSeconds(), TimeUnit.SECONDS))
        .isEqualTo("4404 not_found");
    assertThat(member.texts())
        .anyMatch(
            t ->
                t.contains("\"type\":\"ended\"")
                    && t.contains("\"reason\":\"cluster_hidden\"")
                    && t.contains("is no longer visible to you"));
    // The agent stopped reading the member's log; the owner's and the service account's go on.
    await().atMost(BOUND).until(() -> c.agent().openLogStreams() == 2);
    appendLines(2, "grant-after");
    for (WsFollow f : List.of(owner, account)) {
      await().atMost(BOUND).until(() -> f.log().toString().contains("grant-after 1"));
      assertThat(f.closed()).isNotDone();
    }
    assertThat(member.log().toString()).doesNotContain("grant-after");
    await()
        .atMost(BOUND)
        .untilAsserted(() -> assertThat(auditEndReasons(c.id())).contains("cluster_hidden"));
    // A new session of the member is refused as for an unknown cluster.
    CompletableFuture<String> refused = new CompletableFuture<>();
    http.newWebSocketBuilder()
        .subprotocols(PROTOCOL, "bearer." + m.token())
        .buildAsync(
            URI.create(
                "ws://127.0.0.1:"
                    + hub.httpPort()
                    + "/api/v2/clusters/"
                    + c.id()
                    + "/logs/ws?namespace="
                    + NS
                    + "&pod="
                    + pod),
            new WebSocket.Listener() {
              @Override
              public CompletionStage<?> onClose(WebSocket w, int status, String reason) {
                refused.complete(status + " " + reason);
                return null;
              }
            })
        .get(15, TimeUnit.SECONDS);
    assertThat(refused.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("4404 not_found");

    // Revoking the service account's token ends its session as a revoked credential: 1008.
    Response gone =
        hub.send("DELETE", "/api/v2/service-accounts/" + saTokenPath.get(), org.owner, null);
    assertThat(gone.status()).as(gone.raw()).isEqualTo(200);
    assertThat(account.closed().get(BOUND.toSeconds(), TimeUnit.SECONDS))
        .isEqualTo("1008 access revoked: token revoked");
    await().atMost(BOUND).until(() -> c.agent().openLogStreams() == 1);
    assertThat(owner.closed()).isNotDone();
  }

  @Test
  void leavingTheTeamEndsTheMembersHttpFollowWithALastNoticeLine() throws Exception {
    Cluster c = cluster("team-" + s, Map.of("tier", "team-" + s));
    Member m = member("team");
    org.clusterGrant(m.team(), "viewer", Map.of("tier", "team-" + s));

    List<String> lines = new CopyOnWriteArrayList<>();
    CompletableFuture<List<String>> follow = httpFollow(c.id(), m.token(), lines);
    appendLines(2, "team-before");
    await().atMost(BOUND).until(() -> lines.contains("team-before 1"));

    Response removed =
        hub.send("DELETE", "/api/v2/teams/" + m.team() + "/members/" + m.id(), org.owner, null);
    assertThat(removed.status()).as(removed.raw()).isEqualTo(204);

    List<String> all = follow.get(BOUND.toSeconds(), TimeUnit.SECONDS);
    assertThat(all.get(all.size() - 1))
        .isEqualTo(
            "[gitopshq] log session ended: access revoked: cluster team-"
                + s
                + " is no longer visible to you");
    await().atMost(BOUND).until(() -> c.agent().openLogStreams() == 0);
    await()
        .atMost(BOUND)
        .untilAsserted(() -> assertThat(auditEndReasons(c.id())).containsExactly("cluster_hidden"));
  }

  @Test
  void relabellingTheClusterOutOfTheGrantEndsTheSessionWithinTheRecheckInterval() throws Exception {
    // No event tells the log sessions of a label change: only the periodic re-check sees it.
    Cluster c = cluster("labels-" + s, Map.of("tier", "labels-" + s));
    Member m = member("labels");
    org.clusterGrant(m.team(), "member", Map.of("tier", "labels-" + s));
    WsFollow member = wsFollow(c.id(), m.token());
    appendLines(2, "labels-before");
    await().atMost(BOUND).until(() -> member.log().toString().contains("labels-before 1"));

    Response relabelled =
        hub.patch(
            "/api/v2/clusters/" + c.id(), org.owner, Map.of("labels", Map.of("tier", "elsewhere")));
    assertThat(relabelled.status()).as(relabelled.raw()).isEqualTo(200);

    assertThat(member.closed().get(BOUND.toSeconds(), TimeUnit.SECONDS))
        .isEqualTo("4404 not_found");
    await().atMost(BOUND).until(() -> c.agent().openLogStreams() == 0);
  }
}
