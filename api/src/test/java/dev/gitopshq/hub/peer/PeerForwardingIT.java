package dev.gitopshq.hub.peer;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.v1.LogStreamControl;
import dev.gitopshq.agent.v1.OpenLogStream;
import dev.gitopshq.agent.v1.ReadResource;
import dev.gitopshq.agent.v1.ResourceDetail;
import dev.gitopshq.hub.GatewayTlsFiles;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.hub.v1.HubPeerGrpc;
import dev.gitopshq.hub.v1.PeerReadResource;
import dev.gitopshq.hub.v1.PeerTarget;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.stub.MetadataUtils;
import java.io.BufferedReader;
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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Two hub replicas, a and b, on one PostgreSQL and one Temporal server, both with the same peer key
 * and the same peer certificate (mutual TLS, a private CA made with openssl). The agent's stream is
 * held by a; every request goes to b, which forwards it to a over hub.v1.HubPeer. Then the agent's
 * stream drops, and a replica holding it dies: requests wait for the agent to come back to another
 * replica and are served. The last test lets the agent go for longer than that wait: then, and only
 * then, the replicas answer 409, at once.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PeerForwardingIT {
  /** The WebSocket subprotocol of log sessions (LogsWebSocket.PROTOCOL). */
  static final String LOGS_PROTOCOL = "gitopshq.logs.v1";

  /** How long a live request waits for an agent coming back (GITOPSHQ_LIVE_RECONNECT_WAIT). */
  static final Duration RECONNECT_WAIT = Duration.ofSeconds(5);

  /** When the agent comes back after its stream dropped, well within the wait. */
  static final long BACK_AFTER_MILLIS = 1_500;

  static final String PEER_KEY = "peer-key-for-tests-0123456789abcdef0123456789";

  /** The peer CA, and the certificate both replicas serve and present (GatewayTlsFiles). */
  static Path tls;

  static HubTestSupport a;
  static HubTestSupport b;
  static FakeAgent agent;
  static String clusterId;
  static UUID orgId;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    tls = GatewayTlsFiles.create("gitopshq-peer-tls");
    a = replica(new HubTestSupport(), "replica-a");
    b = replica(new HubTestSupport(a), "replica-b");
    String name = "forwarded-" + UUID.randomUUID().toString().substring(0, 6);
    Response created = b.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name));
    assertThat(created.status()).as(created.raw()).isEqualTo(201);
    clusterId = created.body().get("cluster").get("id").asText();
    orgId = UUID.fromString(b.get("/api/v2/me", OWNER_TOKEN).body().get("org").get("id").asText());
    agent =
        FakeAgent.connect(a.grpcAddress(), name, created.body().get("registrationToken").asText());
    assertThat(a.gateway().connectedAgents()).isEqualTo(1);
    assertThat(b.gateway().connectedAgents()).isZero();
    bind(name);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                "Connected"
                    .equals(
                        b.get("/api/v2/clusters/" + clusterId, OWNER_TOKEN)
                            .body()
                            .get("status")
                            .asText()));
  }

  /**
   * Gives the cluster one binding (a project whose environment delivers to it, with one tenant), so
   * that its Bindings tab asks the agent for its Argo CD applications.
   */
  static void bind(String cluster) {
    String env = "env-" + cluster;
    String tenant = "tenant-" + cluster;
    ok(b.post("/api/v2/environments", OWNER_TOKEN, Map.of("name", env)));
    ok(b.post("/api/v2/tenants", OWNER_TOKEN, Map.of("name", tenant)));
    String project =
        ok(b.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", "project-" + cluster)))
            .get("id")
            .asText();
    ok(
        b.send(
            "PUT",
            "/api/v2/projects/" + project + "/environments/" + env,
            OWNER_TOKEN,
            Map.of("clusters", List.of(Map.of("cluster", cluster, "deliveryMode", "argocd")))));
    ok(b.send("PUT", "/api/v2/projects/" + project + "/tenants/" + tenant, OWNER_TOKEN, Map.of()));
  }

  static JsonNode ok(Response r) {
    assertThat(r.status()).as(r.raw()).isBetween(200, 299);
    return r.body();
  }

  /** Why the cluster's one binding's sync state is what it is, as its Bindings tab says. */
  static String bindingSyncReason(HubTestSupport hub) {
    Response r = hub.get("/api/v2/clusters/" + clusterId + "/bindings", OWNER_TOKEN);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(r.body().get("items")).as(r.raw()).hasSize(1);
    return r.body().get("items").get(0).path("syncReason").asText();
  }

  static HubTestSupport replica(HubTestSupport hub, String id) {
    // Small pools: the test database server is shared, and two replicas start here.
    return hub.property("spring.datasource.hikari.maximum-pool-size", 5)
        .property("gitopshq.replica-id", id)
        .property("gitopshq.peer.key", PEER_KEY)
        .property("gitopshq.peer.port", 0)
        .property("gitopshq.peer.address", "127.0.0.1")
        .property("gitopshq.peer.tls-cert-file", tls.resolve("hub.crt"))
        .property("gitopshq.peer.tls-key-file", tls.resolve("hub.key"))
        .property("gitopshq.peer.tls-ca-file", tls.resolve("ca.crt"))
        .property("gitopshq.agent.live-reconnect-wait", RECONNECT_WAIT.toMillis() + "ms")
        .start();
  }

  @AfterAll
  static void stop() {
    if (agent != null) {
      agent.close();
    }
    if (b != null) {
      b.close();
    }
    if (a != null) {
      a.close();
    }
  }

  static String inspectPath(String name) {
    return "/api/v2/clusters/" + clusterId + "/resources/core/v1/ConfigMap/demo/" + name;
  }

  @Test
  @Order(1)
  void aLiveReadSentToTheOtherReplicaIsAnsweredByTheAgent() {
    Response r = b.get(inspectPath("settings"), OWNER_TOKEN);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(r.raw()).contains("answeredBy: fake-agent").contains("name: settings");
  }

  @Test
  @Order(2)
  void anInventoryRefreshSentToTheOtherReplicaReachesTheAgent() throws Exception {
    Response r = b.post("/api/v2/clusters/" + clusterId + "/inventory/refresh", OWNER_TOKEN, null);
    assertThat(r.status()).as(r.raw()).isEqualTo(202);
    String requestId = r.body().get("requestId").asText();
    assertThat(agent.refreshes.poll(10, TimeUnit.SECONDS)).isEqualTo(requestId);
  }

  @Test
  @Order(3)
  void aLogFollowedThroughTheOtherReplicaStreamsUntilTheReaderLeaves() throws Exception {
    HttpResponse<InputStream> r =
        http.send(
            HttpRequest.newBuilder(
                    URI.create(
                        "http://127.0.0.1:"
                            + b.httpPort()
                            + "/api/v2/clusters/"
                            + clusterId
                            + "/logs?namespace=demo&pod=web-0&follow=true"))
                .header("Authorization", "Bearer " + OWNER_TOKEN)
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.statusCode()).isEqualTo(200);
    OpenLogStream opened = agent.logsOpened.poll(10, TimeUnit.SECONDS);
    assertThat(opened).isNotNull();
    assertThat(opened.getPod()).isEqualTo("web-0");
    assertThat(opened.getFollow()).isTrue();
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
      List<String> lines = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        lines.add(in.readLine());
      }
      assertThat(lines).containsExactly("line 0", "line 1", "line 2", "line 3", "line 4");
      // Followed: what the agent sends later arrives too.
      agent.log(opened.getSessionId(), "later\n");
      assertThat(in.readLine()).isEqualTo("later");
    }
    // The reader left on b; b notices at its next write: the session ends on the agent behind a.
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () -> {
              agent.log(opened.getSessionId(), "after the reader left\n");
              LogStreamControl c = agent.logControls.poll(1, TimeUnit.SECONDS);
              return c != null && c.getSessionId().equals(opened.getSessionId()) && c.getClose();
            });
  }

  @Test
  @Order(4)
  void aLogFollowedOverAWebSocketOnTheOtherReplicaStreamsToo() throws Exception {
    StringBuffer received = new StringBuffer();
    CompletableFuture<String> opened = new CompletableFuture<>();
    WebSocket.Listener listener =
        new WebSocket.Listener() {
          @Override
          public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            opened.complete(data.toString());
            ws.request(1);
            return null;
          }

          @Override
          public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            received.append(new String(bytes, StandardCharsets.UTF_8));
            ws.request(1);
            return null;
          }
        };
    WebSocket ws =
        http.newWebSocketBuilder()
            .subprotocols(LOGS_PROTOCOL, "bearer." + OWNER_TOKEN)
            .buildAsync(
                URI.create(
                    "ws://127.0.0.1:"
                        + b.httpPort()
                        + "/api/v2/clusters/"
                        + clusterId
                        + "/logs/ws?namespace=demo&pod=web-1&follow=true"),
                listener)
            .get(10, TimeUnit.SECONDS);
    assertThat(opened.get(10, TimeUnit.SECONDS)).contains("\"type\":\"opened\"");
    OpenLogStream session = agent.logsOpened.poll(10, TimeUnit.SECONDS);
    assertThat(session.getPod()).isEqualTo("web-1");
    await().atMost(Duration.ofSeconds(10)).until(() -> received.toString().contains("line 4"));
    agent.log(session.getSessionId(), "over the socket\n");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> received.toString().contains("over the socket"));
    ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
  }

  @Test
  @Order(5)
  void peerCallsWithoutTheInstallationsKeyAreRefused() {
    ReadResource read =
        ReadResource.newBuilder()
            .setRequestId(UUID.randomUUID().toString())
            .setVersion("v1")
            .setKind("ConfigMap")
            .setNamespace("demo")
            .setName("secret-ish")
            .build();
    PeerReadResource call =
        PeerReadResource.newBuilder()
            .setTarget(PeerTarget.newBuilder().setOrgId(orgId.toString()).setClusterId(clusterId))
            .setRequest(read)
            .build();
    ManagedChannel ch = peerChannel(a, tls, tls);
    try {
      assertThat(code(() -> HubPeerGrpc.newBlockingStub(ch).readResource(call)))
          .isEqualTo(Status.Code.UNAUTHENTICATED);
      assertThat(
              code(
                  () ->
                      withKey(ch, PEER_KEY.replace('0', '1'))
                          .withDeadlineAfter(5, TimeUnit.SECONDS)
                          .readResource(call)))
          .isEqualTo(Status.Code.UNAUTHENTICATED);
      // The right key reads through a, which holds the stream.
      assertThat(
              withKey(ch, PEER_KEY)
                  .withDeadlineAfter(5, TimeUnit.SECONDS)
                  .readResource(call)
                  .getOutcome())
          .isEqualTo(ResourceDetail.Outcome.FOUND);
    } finally {
      ch.shutdownNow();
    }
    // b does not hold the stream, and never forwards a forwarded call again.
    ManagedChannel toB = peerChannel(b, tls, tls);
    try {
      assertThat(
              code(
                  () ->
                      withKey(toB, PEER_KEY)
                          .withDeadlineAfter(5, TimeUnit.SECONDS)
                          .readResource(call)))
          .isEqualTo(Status.Code.FAILED_PRECONDITION);
    } finally {
      toB.shutdownNow();
    }
  }

  @Test
  @Order(5)
  void aPeerWithACertificateFromAnotherCaIsRefusedEitherWay() throws Exception {
    Path other = GatewayTlsFiles.create("gitopshq-other-ca");
    PeerReadResource call = peerRead("other-ca");
    // A client whose certificate another CA signed never gets to present the key.
    assertThat(readWithKey(peerChannel(a, other, tls), call)).isEqualTo(Status.Code.UNAVAILABLE);
    // Nor does one with no certificate at all.
    assertThat(readWithKey(peerChannel(a, null, tls), call)).isEqualTo(Status.Code.UNAVAILABLE);
    // And a replica trusting another CA refuses a's certificate: it would not forward to it.
    assertThat(readWithKey(peerChannel(a, tls, other), call)).isEqualTo(Status.Code.UNAVAILABLE);
    // The installation's certificate and key read through a.
    assertThat(readWithKey(peerChannel(a, tls, tls), call)).isEqualTo(Status.Code.OK);
  }

  @Test
  @Order(5)
  void aPlaintextClientCannotTalkToTheTlsPeerPort() {
    ManagedChannel plain =
        NettyChannelBuilder.forAddress("127.0.0.1", a.bean(HubPeers.class).port())
            .usePlaintext()
            .build();
    assertThat(readWithKey(plain, peerRead("plaintext"))).isEqualTo(Status.Code.UNAVAILABLE);
  }

  /**
   * Not a test of behaviour alone: the overhead of the forwarding hop on a live read, printed next
   * to the same read on the replica that holds the stream, interleaved in one run (see
   * bench/run-peer-forwarding.sh for more rounds and a results file).
   */
  @Test
  @Order(6)
  void aForwardedLiveReadCostsOneHopMore() throws Exception {
    int rounds = Integer.getInteger("gitopshq.bench.peer.rounds", 50);
    int warmup = Integer.getInteger("gitopshq.bench.peer.warmup", 20);
    UUID org = orgId;
    UUID cluster = UUID.fromString(clusterId);
    LongSupplier restA = () -> timed(() -> expect200(a.get(inspectPath("bench"), OWNER_TOKEN)));
    LongSupplier restB = () -> timed(() -> expect200(b.get(inspectPath("bench"), OWNER_TOKEN)));
    LongSupplier gwA = () -> timed(() -> gatewayRead(a, org, cluster));
    LongSupplier gwB = () -> timed(() -> gatewayRead(b, org, cluster));
    for (int i = 0; i < warmup; i++) {
      restA.getAsLong();
      restB.getAsLong();
      gwA.getAsLong();
      gwB.getAsLong();
    }
    long[][] t = new long[4][rounds];
    for (int i = 0; i < rounds; i++) {
      // Interleaved, so both see the same machine.
      t[0][i] = restA.getAsLong();
      t[1][i] = restB.getAsLong();
      t[2][i] = gwA.getAsLong();
      t[3][i] = gwB.getAsLong();
    }
    String[] names = {
      "REST, replica holding the stream",
      "REST, forwarded by the other replica",
      "gateway, replica holding the stream",
      "gateway, forwarded by the other replica"
    };
    StringBuilder report = new StringBuilder();
    StringBuilder json = new StringBuilder("{\"rounds\":" + rounds + ",\"warmup\":" + warmup);
    report.append(
        String.format(
            Locale.ROOT,
            "%nlive read latency, %d rounds (ms): %-42s %7s %7s %7s %7s%n",
            rounds,
            "",
            "p50",
            "p90",
            "p99",
            "mean"));
    String[] keys = {"restHolder", "restForwarded", "gatewayHolder", "gatewayForwarded"};
    for (int k = 0; k < 4; k++) {
      long[] s = t[k].clone();
      Arrays.sort(s);
      double p50 = ms(s[s.length / 2]);
      double p90 = ms(s[(int) Math.min(s.length - 1, Math.ceil(s.length * 0.9) - 1)]);
      double p99 = ms(s[(int) Math.min(s.length - 1, Math.ceil(s.length * 0.99) - 1)]);
      double mean = ms((long) Arrays.stream(s).average().orElse(0));
      report.append(
          String.format(
              Locale.ROOT, "  %-72s %7.2f %7.2f %7.2f %7.2f%n", names[k], p50, p90, p99, mean));
      json.append(
          String.format(
              Locale.ROOT,
              ",\"%s\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"mean\":%.3f}",
              keys[k],
              p50,
              p90,
              p99,
              mean));
    }
    json.append("}\n");
    System.out.println(report);
    String out = System.getProperty("gitopshq.bench.peer.out");
    if (out != null && !out.isBlank()) {
      Files.writeString(Path.of(out), json.toString());
    }
    // Every forwarded read was answered by the agent (timed() throws otherwise).
    assertThat(Arrays.stream(t[1]).allMatch(v -> v > 0)).isTrue();
  }

  @Test
  @Order(7)
  void requestsWhileTheAgentReconnectsToTheOtherReplicaWaitForItAndAreServed() throws Exception {
    agent.close();
    awaitNoHolder();
    // Sent while no replica holds the stream: the read to a (forwarded to b once the agent is
    // there), the refresh to b (served there).
    long start = System.nanoTime();
    CompletableFuture<Response> read =
        CompletableFuture.supplyAsync(() -> a.get(inspectPath("settings"), OWNER_TOKEN));
    CompletableFuture<Response> refresh =
        CompletableFuture.supplyAsync(
            () ->
                b.post("/api/v2/clusters/" + clusterId + "/inventory/refresh", OWNER_TOKEN, null));
    // The Bindings tab's sync states wait for the agent too, and then come from its answer.
    CompletableFuture<String> syncReason =
        CompletableFuture.supplyAsync(() -> bindingSyncReason(a));
    Thread.sleep(BACK_AFTER_MILLIS);
    agent = agent.reconnect(b.grpcAddress());

    Response r = read.get(30, TimeUnit.SECONDS);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(r.raw()).contains("answeredBy: fake-agent");
    Response f = refresh.get(30, TimeUnit.SECONDS);
    assertThat(f.status()).as(f.raw()).isEqualTo(202);
    assertThat(agent.refreshes.poll(10, TimeUnit.SECONDS))
        .isEqualTo(f.body().get("requestId").asText());
    assertThat(syncReason.get(30, TimeUnit.SECONDS))
        .startsWith("no Argo CD application or Flux kustomization tracks deploy/env-");
    assertThat(ms(System.nanoTime() - start)).isGreaterThanOrEqualTo(BACK_AFTER_MILLIS);
    assertThat(b.gateway().connectedAgents()).isEqualTo(1);
  }

  @Test
  @Order(8)
  void aReadForwardedToAKilledReplicaWaitsForTheAgentOnASurvivor() throws Exception {
    agent.close();
    awaitNoHolder();
    // As after SIGKILL: PostgreSQL still names the dead replica as the holder, its hub_replicas row
    // still fresh, its peer port refusing connections.
    int deadPort = HubTestSupport.freePort();
    HubTestSupport.exec(
        "insert into hub_replicas (replica_id, peer_address, seen_at)"
            + " values ('replica-killed', ?, now())",
        "127.0.0.1:" + deadPort);
    try {
      HubTestSupport.exec(
          "update clusters set connected_replica = 'replica-killed', connected_at = now(),"
              + " last_seen_at = now() where id = ?::uuid",
          clusterId);
      long start = System.nanoTime();
      CompletableFuture<Response> read =
          CompletableFuture.supplyAsync(() -> b.get(inspectPath("settings"), OWNER_TOKEN));
      Thread.sleep(BACK_AFTER_MILLIS);
      agent = agent.reconnect(a.grpcAddress());

      Response r = read.get(30, TimeUnit.SECONDS);
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
      assertThat(r.raw()).contains("answeredBy: fake-agent");
      assertThat(ms(System.nanoTime() - start)).isGreaterThanOrEqualTo(BACK_AFTER_MILLIS);
      assertThat(a.gateway().connectedAgents()).isEqualTo(1);
    } finally {
      HubTestSupport.exec("delete from hub_replicas where replica_id = 'replica-killed'");
    }
  }

  @Test
  @Order(9)
  void onceTheAgentIsGoneForLongerThanTheWaitTheReplicasAnswer409AtOnce() throws Exception {
    agent.close();
    awaitNoHolder();
    Thread.sleep(RECONNECT_WAIT.toMillis() + 500);
    for (HubTestSupport hub : List.of(a, b)) {
      long start = System.nanoTime();
      Response read = hub.get(inspectPath("settings"), OWNER_TOKEN);
      assertThat(read.status()).as(read.raw()).isEqualTo(409);
      assertThat(read.body().get("message").asText())
          .contains("is not connected to any hub replica");
      Response refresh =
          hub.post("/api/v2/clusters/" + clusterId + "/inventory/refresh", OWNER_TOKEN, null);
      assertThat(refresh.status()).as(refresh.raw()).isEqualTo(409);
      Response logs =
          hub.get("/api/v2/clusters/" + clusterId + "/logs?namespace=demo&pod=web-0", OWNER_TOKEN);
      assertThat(logs.status()).as(logs.raw()).isEqualTo(409);
      assertThat(bindingSyncReason(hub)).isEqualTo("the agent is not connected");
      // No wait: the four answers together come well within the wait.
      assertThat(ms(System.nanoTime() - start)).isLessThan(RECONNECT_WAIT.toMillis() / 2.0);
    }
  }

  /** Waits until no replica holds the agent's stream and PostgreSQL names none. */
  static void awaitNoHolder() {
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () ->
                a.gateway().connectedAgents() == 0
                    && b.gateway().connectedAgents() == 0
                    && HubTestSupport.count(
                            "select count(*) from clusters where id = ?::uuid"
                                + " and connected_replica is null",
                            clusterId)
                        == 1);
  }

  static void gatewayRead(HubTestSupport hub, UUID org, UUID cluster) {
    try {
      ResourceDetail d =
          hub.gateway()
              .readResource(
                  org,
                  cluster,
                  ReadResource.newBuilder()
                      .setRequestId(UUID.randomUUID().toString())
                      .setVersion("v1")
                      .setKind("ConfigMap")
                      .setNamespace("demo")
                      .setName("bench")
                      .build(),
                  Duration.ofSeconds(10))
              .orElseThrow()
              .get(10, TimeUnit.SECONDS);
      assertThat(d.getOutcome()).isEqualTo(ResourceDetail.Outcome.FOUND);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static void expect200(Response r) {
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
  }

  static long timed(Runnable r) {
    long start = System.nanoTime();
    r.run();
    return System.nanoTime() - start;
  }

  static double ms(long nanos) {
    return nanos / 1e6;
  }

  /**
   * A channel to the hub's peer port presenting the certificate in {@code cert} (none when null)
   * and trusting the CA in {@code ca}.
   */
  static ManagedChannel peerChannel(HubTestSupport hub, Path cert, Path ca) {
    try {
      SslContextBuilder b = GrpcSslContexts.forClient().trustManager(ca.resolve("ca.crt").toFile());
      if (cert != null) {
        b.keyManager(cert.resolve("hub.crt").toFile(), cert.resolve("hub.key").toFile());
      }
      return NettyChannelBuilder.forAddress("127.0.0.1", hub.bean(HubPeers.class).port())
          .sslContext(b.build())
          .build();
    } catch (SSLException e) {
      throw new IllegalStateException(e);
    }
  }

  static PeerReadResource peerRead(String name) {
    return PeerReadResource.newBuilder()
        .setTarget(PeerTarget.newBuilder().setOrgId(orgId.toString()).setClusterId(clusterId))
        .setRequest(
            ReadResource.newBuilder()
                .setRequestId(UUID.randomUUID().toString())
                .setVersion("v1")
                .setKind("ConfigMap")
                .setNamespace("demo")
                .setName(name))
        .build();
  }

  /** The code of a read with the installation's key over {@code ch}, which is shut down after. */
  static Status.Code readWithKey(ManagedChannel ch, PeerReadResource call) {
    try {
      return code(
          () -> withKey(ch, PEER_KEY).withDeadlineAfter(5, TimeUnit.SECONDS).readResource(call));
    } finally {
      ch.shutdownNow();
    }
  }

  static HubPeerGrpc.HubPeerBlockingStub withKey(ManagedChannel ch, String key) {
    Metadata md = new Metadata();
    md.put(Metadata.Key.of("x-gitopshq-peer-key", Metadata.ASCII_STRING_MARSHALLER), key);
    return HubPeerGrpc.newBlockingStub(ch)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md));
  }

  static Status.Code code(Runnable call) {
    try {
      call.run();
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }
}
