package dev.gitopshq.hub.gateway;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.v1.AgentHubGrpc;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.Heartbeat;
import dev.gitopshq.agent.v1.Hello;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.RegisterRequest;
import dev.gitopshq.agent.v1.RegisterResponse;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.workflows.registration.RegistrationOutcome;
import dev.gitopshq.workflows.registration.RegistrationState;
import dev.gitopshq.workflows.registration.RegistrationWorkflow;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The agent gateway over a real gRPC port: registration token semantics, the Connect stream,
 * heartbeats and health, against the real hub, PostgreSQL and the Temporal test server.
 */
public class AgentGatewayIT {
  static HubTestSupport hub;
  static ManagedChannel channel;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.shared();
    channel = NettyChannelBuilder.forTarget(hub.grpcAddress()).usePlaintext().build();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  record Cluster(String id, String name, String registrationToken) {}

  static Cluster newCluster() {
    String name = "gw-" + UUID.randomUUID().toString().substring(0, 8);
    JsonNode body =
        hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name, "environment", "staging"))
            .body();
    return new Cluster(
        body.get("cluster").get("id").asText(), name, body.get("registrationToken").asText());
  }

  static AgentHubGrpc.AgentHubBlockingStub blocking(String token) {
    Metadata md = new Metadata();
    md.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
    return AgentHubGrpc.newBlockingStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md))
        .withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  static AgentHubGrpc.AgentHubStub async(String token) {
    Metadata md = new Metadata();
    md.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
    return AgentHubGrpc.newStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md));
  }

  static RegisterRequest request(String name) {
    return RegisterRequest.newBuilder()
        .setClusterName(name)
        .setAgentVersion("0.1.0")
        .addCapabilities("observe")
        .addCapabilities("kubernetes.scale")
        .build();
  }

  static Status.Code codeOf(Runnable call) {
    try {
      call.run();
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  @Test
  void fiftyConcurrentRegistersWithOneTokenYieldExactlyOneAgentToken() throws Exception {
    Cluster c = newCluster();
    ExecutorService pool = Executors.newFixedThreadPool(50);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Object>> calls = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      calls.add(
          pool.submit(
              (Callable<Object>)
                  () -> {
                    go.await();
                    try {
                      return blocking(c.registrationToken()).register(request(c.name()));
                    } catch (StatusRuntimeException e) {
                      return e.getStatus().getCode();
                    }
                  }));
    }
    go.countDown();
    List<RegisterResponse> successes = new ArrayList<>();
    List<Object> failures = new ArrayList<>();
    for (Future<Object> f : calls) {
      Object r = f.get(30, TimeUnit.SECONDS);
      if (r instanceof RegisterResponse ok) {
        successes.add(ok);
      } else {
        failures.add(r);
      }
    }
    pool.shutdown();

    assertThat(successes).hasSize(1);
    assertThat(failures).hasSize(49).containsOnly(Status.Code.UNAUTHENTICATED);
    RegisterResponse win = successes.get(0);
    assertThat(win.getClusterId()).isEqualTo(c.id());
    assertThat(win.getAgentToken()).matches("ghqa_[0-9a-f]{64}");
    assertThat(win.getSettings().getHeartbeatIntervalSeconds()).isEqualTo(30);
    assertThat(
            HubTestSupport.count(
                "select count(*) from cluster_tokens where cluster_id = ?::uuid and kind = 'agent'",
                c.id()))
        .isEqualTo(1);
  }

  @Test
  void aUsedExpiredSupersededOrUnknownTokenIsRejectedAlike() {
    Cluster used = newCluster();
    blocking(used.registrationToken()).register(request(used.name()));

    Cluster expired = newCluster();
    HubTestSupport.exec(
        "update cluster_tokens set expires_at = now() - interval '1 second' where cluster_id = ?::uuid",
        expired.id());

    Cluster superseded = newCluster();
    hub.post("/api/v2/clusters/" + superseded.id() + "/join-token", OWNER_TOKEN, null);

    List<String> messages = new ArrayList<>();
    for (String token :
        List.of(
            used.registrationToken(),
            expired.registrationToken(),
            superseded.registrationToken(),
            "ghqa_reg_" + "a".repeat(64),
            "not-a-token")) {
      StatusRuntimeException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              StatusRuntimeException.class, () -> blocking(token).register(request("")));
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
      messages.add(e.getStatus().getDescription());
    }
    assertThat(messages).containsOnly(messages.get(0));
    assertThat(
            hub.get("/api/v2/clusters/" + expired.id(), OWNER_TOKEN).body().get("status").asText())
        .isEqualTo("Expired");
  }

  @Test
  void aMismatchedClusterNameConsumesNothing() {
    Cluster c = newCluster();
    assertThat(
            codeOf(() -> blocking(c.registrationToken()).register(request("some-other-cluster"))))
        .isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(codeOf(() -> blocking(c.registrationToken()).register(request("BAD NAME"))))
        .isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(
            codeOf(
                () ->
                    blocking(c.registrationToken())
                        .register(
                            request(c.name()).toBuilder().addCapabilities("root.shell").build())))
        .isEqualTo(Status.Code.INVALID_ARGUMENT);
    // An agent of another major version is refused with what to do, and consumes nothing either.
    StatusRuntimeException incompatible =
        org.junit.jupiter.api.Assertions.assertThrows(
            StatusRuntimeException.class,
            () ->
                blocking(c.registrationToken())
                    .register(request(c.name()).toBuilder().setAgentVersion("1.0.0").build()));
    assertThat(incompatible.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(incompatible.getStatus().getDescription())
        .contains("not compatible")
        .contains("major");
    // The same token still works once the install is fixed.
    assertThat(blocking(c.registrationToken()).register(request(c.name())).getClusterId())
        .isEqualTo(c.id());
  }

  @Test
  void theRegistrationHistoryShowsIssuanceAndConsumptionButNoToken() throws Exception {
    Cluster c = newCluster();
    String tokenId = tokenIdOf(c.id());
    RegisterResponse r = blocking(c.registrationToken()).register(request(c.name()));

    WorkflowClient client = hub.bean(WorkflowClient.class);
    RegistrationOutcome outcome =
        client
            .newUntypedWorkflowStub(RegistrationWorkflow.workflowId(tokenId))
            .getResult(10, TimeUnit.SECONDS, RegistrationOutcome.class);
    assertThat(outcome.state()).isEqualTo(RegistrationState.REGISTERED);

    String history =
        decodePayloads(client.fetchHistory(RegistrationWorkflow.workflowId(tokenId)).toJson(true));
    assertThat(history).contains("ConfirmIssued").contains("agentRegistered").contains(tokenId);
    assertThat(history).as("payloads were decoded").contains("\"state\":\"REGISTERED\"");
    assertThat(history).doesNotContain(c.registrationToken()).doesNotContain(r.getAgentToken());
    assertThat(history).doesNotContain("ghqa_");
  }

  /** The history's JSON with every base64 payload decoded in place, so assertions see its text. */
  public static String decodePayloads(String historyJson) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\"data\": \"([A-Za-z0-9+/=\\\\u]+)\"")
            .matcher(historyJson);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String b64 = m.group(1).replace("\\u003d", "=");
      String decoded =
          new String(
              java.util.Base64.getDecoder().decode(b64), java.nio.charset.StandardCharsets.UTF_8);
      m.appendReplacement(out, java.util.regex.Matcher.quoteReplacement("\"data\": " + decoded));
    }
    m.appendTail(out);
    return out.toString();
  }

  static String tokenIdOf(String clusterId) {
    try (var conn = HubTestSupport.db();
        var ps =
            conn.prepareStatement(
                "select id from cluster_tokens where cluster_id = ?::uuid and kind = 'registration'"
                    + " and status = 'active'")) {
      ps.setString(1, clusterId);
      try (var rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A minimal agent side of Connect, driven by the test. */
  static final class Stream implements StreamObserver<HubMessage> {
    final BlockingQueue<HubMessage> received = new LinkedBlockingQueue<>();
    final CountDownLatch closed = new CountDownLatch(1);
    volatile Status status;
    StreamObserver<AgentMessage> out;

    static Stream open(String token) {
      Stream s = new Stream();
      s.out = async(token).connect(s);
      return s;
    }

    void hello(int interval) {
      out.onNext(
          AgentMessage.newBuilder()
              .setHello(
                  Hello.newBuilder()
                      .setAgentVersion("0.1.0")
                      .addCapabilities("observe")
                      .addCapabilities("kubernetes.restart")
                      .setHeartbeatIntervalSeconds(interval))
              .build());
    }

    void beat(long seq) {
      out.onNext(
          AgentMessage.newBuilder().setHeartbeat(Heartbeat.newBuilder().setSequence(seq)).build());
    }

    @Override
    public void onNext(HubMessage value) {
      received.add(value);
    }

    @Override
    public void onError(Throwable t) {
      status = Status.fromThrowable(t);
      closed.countDown();
    }

    @Override
    public void onCompleted() {
      status = Status.OK;
      closed.countDown();
    }
  }

  @Test
  void connectShowsTheClusterConnectedWithVersionAndCapabilitiesAndHeartbeatsMoveLastSeen()
      throws Exception {
    Cluster c = newCluster();
    String agentToken = blocking(c.registrationToken()).register(request(c.name())).getAgentToken();

    Stream s = Stream.open(agentToken);
    s.hello(5);
    HubMessage welcome = s.received.poll(10, TimeUnit.SECONDS);
    assertThat(welcome).isNotNull();
    assertThat(welcome.getWelcome().getClusterId()).isEqualTo(c.id());
    assertThat(welcome.getWelcome().getSettings().getHeartbeatIntervalSeconds()).isEqualTo(5);

    JsonNode view = hub.get("/api/v2/clusters/" + c.id(), OWNER_TOKEN).body();
    assertThat(view.get("status").asText()).isEqualTo("Connected");
    assertThat(view.get("agentVersion").asText()).isEqualTo("0.1.0");
    assertThat(view.get("capabilities").toString()).contains("kubernetes.restart");
    String firstSeen = view.get("lastSeen").asText();

    Thread.sleep(20);
    s.beat(1);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                !hub.get("/api/v2/clusters/" + c.id(), OWNER_TOKEN)
                    .body()
                    .get("lastSeen")
                    .asText()
                    .equals(firstSeen));

    s.out.onCompleted();
    assertThat(s.closed.await(5, TimeUnit.SECONDS)).isTrue();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                hub.get("/api/v2/clusters/" + c.id(), OWNER_TOKEN)
                    .body()
                    .get("status")
                    .asText()
                    .equals("Disconnected"));
  }

  @Test
  void connectRejectsRegistrationTokensUnknownTokensAndRevokedIdentities() throws Exception {
    Cluster c = newCluster();
    Stream withRegistrationToken = Stream.open(c.registrationToken());
    assertThat(withRegistrationToken.closed.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(withRegistrationToken.status.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);

    String first = blocking(c.registrationToken()).register(request(c.name())).getAgentToken();
    Stream live = Stream.open(first);
    live.hello(30);
    assertThat(live.received.poll(10, TimeUnit.SECONDS)).isNotNull();

    // Reinstalling with a join token replaces the identity: the old stream is closed at once.
    String join =
        hub.post("/api/v2/clusters/" + c.id() + "/join-token", OWNER_TOKEN, null)
            .body()
            .get("registrationToken")
            .asText();
    blocking(join).register(request(c.name()));
    assertThat(live.closed.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(live.status.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);

    Stream again = Stream.open(first);
    assertThat(again.closed.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(again.status.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(again.status.getDescription())
        .isEqualTo(withRegistrationToken.status.getDescription());
  }

  @Test
  void theFirstMessageMustBeHello() throws Exception {
    Cluster c = newCluster();
    Stream s =
        Stream.open(blocking(c.registrationToken()).register(request(c.name())).getAgentToken());
    s.beat(1);
    assertThat(s.closed.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(s.status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
  }

  @Test
  void servesTheStandardHealthServiceButNoReflection() throws Exception {
    HealthCheckResponse health =
        HealthGrpc.newBlockingStub(channel)
            .check(HealthCheckRequest.newBuilder().setService("agent.v1.AgentHub").build());
    assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);

    // Server reflection would list the hub's services to anyone: it is not served.
    java.util.concurrent.CompletableFuture<Status> reflectionEnd =
        new java.util.concurrent.CompletableFuture<>();
    List<ServerReflectionResponse> answers = new java.util.concurrent.CopyOnWriteArrayList<>();
    StreamObserver<ServerReflectionRequest> reflection =
        ServerReflectionGrpc.newStub(channel)
            .serverReflectionInfo(
                new StreamObserver<>() {
                  @Override
                  public void onNext(ServerReflectionResponse value) {
                    answers.add(value);
                  }

                  @Override
                  public void onError(Throwable t) {
                    reflectionEnd.complete(Status.fromThrowable(t));
                  }

                  @Override
                  public void onCompleted() {
                    reflectionEnd.complete(Status.OK);
                  }
                });
    reflection.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
    assertThat(reflectionEnd.get(5, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(answers).isEmpty();
  }

  /** Response headers and trailers of one call, as the client saw them. */
  static String metadataOf(java.util.function.Function<AgentHubGrpc.AgentHubBlockingStub, ?> call) {
    java.util.concurrent.atomic.AtomicReference<Metadata> headers =
        new java.util.concurrent.atomic.AtomicReference<>();
    java.util.concurrent.atomic.AtomicReference<Metadata> trailers =
        new java.util.concurrent.atomic.AtomicReference<>();
    String description = "";
    try {
      call.apply(
          AgentHubGrpc.newBlockingStub(channel)
              .withInterceptors(MetadataUtils.newCaptureMetadataInterceptor(headers, trailers))
              .withDeadlineAfter(10, TimeUnit.SECONDS));
    } catch (StatusRuntimeException e) {
      description = e.getStatus().getCode() + " " + e.getStatus().getDescription();
    }
    return description + " " + headers.get() + " " + trailers.get();
  }

  @Test
  void callersThatAreNotAgentsAreNotToldTheHubsVersion() {
    String version = dev.gitopshq.hub.config.HubVersion.current();
    int major = Integer.parseInt(version.replaceFirst("^v?(\\d+).*", "$1"));
    // An incompatible agent version, without a token and with an unknown one.
    RegisterRequest incompatible =
        RegisterRequest.newBuilder()
            .setClusterName("gw-version")
            .setAgentVersion((major + 7) + ".0.0")
            .addCapabilities("observe")
            .build();
    String anonymous = metadataOf(stub -> stub.register(incompatible));
    assertThat(anonymous).startsWith("FAILED_PRECONDITION").contains("is not compatible with");
    assertThat(anonymous).doesNotContain(version).doesNotContain(major + ".x");
    String badToken =
        metadataOf(
            stub ->
                stub.withInterceptors(
                        MetadataUtils.newAttachHeadersInterceptor(
                            bearer("ghqa_reg_" + "0".repeat(64))))
                    .register(incompatible));
    assertThat(badToken).doesNotContain(version);
    // Nor does a refused token or a health check tell it.
    assertThat(metadataOf(stub -> stub.register(request("gw-version")))).doesNotContain(version);
  }

  static Metadata bearer(String token) {
    Metadata md = new Metadata();
    md.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
    return md;
  }

  @Test
  void registerReadsAtMost32KiBBeforeAuthenticationWhileConnectKeepsItsLimit() throws Exception {
    Cluster c = newCluster();
    // 64 KiB and 15 MB registrations are refused from their header, and consume nothing.
    for (int size : new int[] {64 * 1024, 15_000_000}) {
      RegisterRequest big = request(c.name()).toBuilder().setDisplayName("x".repeat(size)).build();
      StatusRuntimeException refused =
          org.assertj.core.api.Assertions.catchThrowableOfType(
              StatusRuntimeException.class, () -> blocking(c.registrationToken()).register(big));
      assertThat(refused).as("a %d-byte Register", size).isNotNull();
      assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      // gRPC's own limit, checked against the declared length before the body is read.
      assertThat(refused.getStatus().getDescription()).contains("exceeds maximum size 32768");
    }
    // What registration needs still fits, and the token was not spent.
    RegisterRequest normal =
        request(c.name()).toBuilder()
            .setDisplayName("Production EU")
            .setProvider("eks")
            .setRegion("eu-west-1")
            .setEnvironment("production")
            .build();
    String agentToken = blocking(c.registrationToken()).register(normal).getAgentToken();
    assertThat(agentToken).startsWith("ghqa_");

    // An authenticated Connect stream still takes a 1 MiB message (16 MiB is its limit).
    Stream s = Stream.open(agentToken);
    com.google.protobuf.UnknownFieldSet padding =
        com.google.protobuf.UnknownFieldSet.newBuilder()
            .addField(
                4242,
                com.google.protobuf.UnknownFieldSet.Field.newBuilder()
                    .addLengthDelimited(
                        com.google.protobuf.ByteString.copyFrom(new byte[1024 * 1024]))
                    .build())
            .build();
    s.out.onNext(
        AgentMessage.newBuilder()
            .setHello(
                Hello.newBuilder()
                    .setAgentVersion("0.1.0")
                    .addCapabilities("observe")
                    .setUnknownFields(padding))
            .build());
    HubMessage welcome = s.received.poll(10, TimeUnit.SECONDS);
    assertThat(welcome).isNotNull();
    assertThat(welcome.hasWelcome()).isTrue();
    s.out.onCompleted();
  }
}
