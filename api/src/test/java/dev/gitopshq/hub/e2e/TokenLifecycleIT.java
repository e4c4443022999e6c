package dev.gitopshq.hub.e2e;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.v1.AgentHubGrpc;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.Hello;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.RegisterRequest;
import dev.gitopshq.agent.v1.TokenRotated;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.gateway.AgentGatewayIT;
import dev.gitopshq.testkube.TestKube;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Token rotation and deregistration with the real agent: the agent persists the new token before
 * acknowledging, restarts onto it, and the old token stops working when the grace period ends;
 * deleting a cluster closes its stream and stops its agent.
 */
class TokenLifecycleIT {
  static HubTestSupport hub;
  static TestKube kube;

  @BeforeAll
  static void start() {
    kube = TestKube.start();
    hub =
        new HubTestSupport()
            .property("gitopshq.tokens.rotation-grace", "4s")
            .property("gitopshq.tokens.rotation-ack-timeout", "10s")
            .start();
  }

  @AfterAll
  static void stop() {
    hub.close();
    kube.close();
  }

  record Installed(String clusterId, Path identityFile, Map<String, String> env) {}

  static Installed install(String name, String capabilities) throws Exception {
    JsonNode created = hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name)).body();
    Path file = Files.createTempDirectory("agent").resolve("identity.json");
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(AgentConfig.AGENT_TOKEN_PATH, file.toString());
    env.put(AgentConfig.CLUSTER_NAME, name);
    env.put(AgentConfig.CAPABILITIES, capabilities);
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    env.put(AgentConfig.RECONNECT_MAX_SECONDS, "1");
    env.put(AgentConfig.REGISTRATION_TOKEN, created.get("registrationToken").asText());
    return new Installed(created.get("cluster").get("id").asText(), file, env);
  }

  static String storedToken(Path file) throws Exception {
    Matcher m = Pattern.compile("ghqa_[0-9a-f]{64}").matcher(Files.readString(file));
    assertThat(m.find()).isTrue();
    return m.group();
  }

  /**
   * Opens a Connect stream with a given token and returns how it ended (or OK if it was welcomed).
   */
  static Status connectWith(String token) throws Exception {
    ManagedChannel ch = NettyChannelBuilder.forTarget(hub.grpcAddress()).usePlaintext().build();
    try {
      Metadata md = new Metadata();
      md.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
      CompletableFuture<Status> result = new CompletableFuture<>();
      StreamObserver<AgentMessage> out =
          AgentHubGrpc.newStub(ch)
              .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md))
              .connect(
                  new StreamObserver<HubMessage>() {
                    @Override
                    public void onNext(HubMessage value) {
                      result.complete(Status.OK);
                    }

                    @Override
                    public void onError(Throwable t) {
                      result.complete(Status.fromThrowable(t));
                    }

                    @Override
                    public void onCompleted() {
                      result.complete(Status.OK);
                    }
                  });
      out.onNext(
          AgentMessage.newBuilder().setHello(Hello.newBuilder().setAgentVersion("0.1.0")).build());
      Status s = result.get(10, TimeUnit.SECONDS);
      out.onCompleted();
      return s;
    } finally {
      ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  static JsonNode audit(String action, String target) {
    return hub.get("/api/v2/audit?action=" + action + "&target=" + target, OWNER_TOKEN)
        .body()
        .get("items");
  }

  static <T extends io.grpc.stub.AbstractStub<T>> T withToken(T stub, String token) {
    Metadata md = new Metadata();
    md.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
    return stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(md));
  }

  /**
   * A cluster with a hand-driven agent stream that says hello and then does only what it is told.
   */
  static final class RawAgent implements StreamObserver<HubMessage>, AutoCloseable {
    final String clusterId;
    final ManagedChannel channel =
        NettyChannelBuilder.forTarget(hub.grpcAddress()).usePlaintext().build();
    final BlockingQueue<HubMessage> received = new LinkedBlockingQueue<>();
    final CompletableFuture<Status> ended = new CompletableFuture<>();
    final StreamObserver<AgentMessage> out;

    RawAgent(String name) {
      JsonNode created = hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name)).body();
      clusterId = created.get("cluster").get("id").asText();
      String agentToken =
          withToken(
                  AgentHubGrpc.newBlockingStub(channel), created.get("registrationToken").asText())
              .register(
                  RegisterRequest.newBuilder()
                      .setClusterName(name)
                      .setAgentVersion("0.1.0")
                      .addCapabilities("observe")
                      .addCapabilities("token.rotate")
                      .build())
              .getAgentToken();
      out = withToken(AgentHubGrpc.newStub(channel), agentToken).connect(this);
      out.onNext(
          AgentMessage.newBuilder()
              .setHello(
                  Hello.newBuilder()
                      .setAgentVersion("0.1.0")
                      .addCapabilities("observe")
                      .addCapabilities("token.rotate")
                      .setHeartbeatIntervalSeconds(1))
              .build());
    }

    @Override
    public void onNext(HubMessage value) {
      received.add(value);
    }

    @Override
    public void onError(Throwable t) {
      ended.complete(Status.fromThrowable(t));
    }

    @Override
    public void onCompleted() {
      ended.complete(Status.OK);
    }

    @Override
    public void close() throws InterruptedException {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void anotherClustersAgentCannotAnswerARotationItWasNotSent() throws Exception {
    try (RawAgent a = new RawAgent("rot-victim");
        RawAgent b = new RawAgent("rot-intruder")) {
      await()
          .atMost(Duration.ofSeconds(15))
          .until(
              () ->
                  hub.get("/api/v2/clusters/" + a.clusterId, OWNER_TOKEN)
                      .body()
                      .get("status")
                      .asText()
                      .equals("Connected"));
      JsonNode started =
          hub.post("/api/v2/clusters/" + a.clusterId + "/rotate-token", OWNER_TOKEN, null).body();
      String rotationId = started.get("rotationId").asText();
      // The victim's agent gets the new token and stays silent.
      HubMessage sent = null;
      while (sent == null || !sent.hasRotateToken()) {
        sent = a.received.poll(15, TimeUnit.SECONDS);
        assertThat(sent).as("the rotation reaches cluster A's stream").isNotNull();
      }
      assertThat(sent.getRotateToken().getRotationId()).isEqualTo(rotationId);

      // Cluster B's agent claims it persisted A's rotation.
      b.out.onNext(
          AgentMessage.newBuilder()
              .setTokenRotated(
                  TokenRotated.newBuilder().setRotationId(rotationId).setPersisted(true))
              .build());

      assertThat(b.ended.get(10, TimeUnit.SECONDS).getCode())
          .isEqualTo(Status.Code.PERMISSION_DENIED);
      // A's rotation was never acknowledged: it fails after the acknowledgement timeout (10 s
      // here) and A's old token stays the valid one.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> audit("cluster.token_rotation.failed", a.clusterId).size() == 1);
      assertThat(audit("cluster.token_rotation.activated", a.clusterId)).isEmpty();
    }
  }

  @Test
  void aRotatedTokenIsPersistedUsedAfterARestartAndTheOldOneDiesAfterTheGrace() throws Exception {
    Installed a = install("rot-ok", "observe,token.rotate");
    String oldToken;
    try (Agent agent = Agent.start(AgentConfig.fromEnv(a.env()), kube::client)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
      oldToken = storedToken(a.identityFile());

      assertThat(
              hub.post("/api/v2/clusters/" + a.clusterId() + "/rotate-token", OWNER_TOKEN, null)
                  .status())
          .isEqualTo(202);
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> !storedToken(a.identityFile()).equals(oldToken));
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> audit("cluster.token_rotation.activated", a.clusterId()).size() == 1);
      // Inside the grace period both tokens work.
      assertThat(connectWith(oldToken).getCode()).isEqualTo(Status.Code.OK);
    }
    String newToken = storedToken(a.identityFile());

    // Restarted, the agent connects with the persisted new token and never registers.
    Map<String, String> restart = new HashMap<>(a.env());
    restart.remove(AgentConfig.REGISTRATION_TOKEN);
    try (Agent agent = Agent.start(AgentConfig.fromEnv(restart), kube::client)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
      assertThat(agent.registerCalls()).isZero();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> audit("cluster.token_rotation.completed", a.clusterId()).size() == 1);
      assertThat(connectWith(oldToken).getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
      assertThat(connectWith(newToken).getCode()).isEqualTo(Status.Code.OK);
      // That probe replaced the agent's stream for a moment; the agent reconnects on its own.
      await().atMost(Duration.ofSeconds(15)).until(agent::isConnected);
    }

    // The history of the rotation holds token ids, never tokens.
    String history =
        hub.temporal()
            .getWorkflowClient()
            .fetchHistory(
                "token-rotation-"
                    + audit("cluster.token_rotation.activated", a.clusterId())
                        .get(0)
                        .get("details")
                        .get("rotationId")
                        .asText())
            .toJson(true);
    assertThat(AgentGatewayIT.decodePayloads(history))
        .doesNotContain(newToken)
        .doesNotContain(oldToken)
        .doesNotContain("ghqa_");
  }

  @Test
  void anAgentWithoutTokenRotateRefusesAndKeepsItsToken() throws Exception {
    Installed a = install("rot-off", "observe");
    try (Agent agent = Agent.start(AgentConfig.fromEnv(a.env()), kube::client)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
      String token = storedToken(a.identityFile());
      hub.post("/api/v2/clusters/" + a.clusterId() + "/rotate-token", OWNER_TOKEN, null);
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> audit("cluster.token_rotation.failed", a.clusterId()).size() == 1);
      assertThat(
              audit("cluster.token_rotation.failed", a.clusterId())
                  .get(0)
                  .get("details")
                  .get("reason")
                  .asText())
          .contains("token.rotate");
      assertThat(storedToken(a.identityFile())).isEqualTo(token);
      assertThat(connectWith(token).getCode()).isEqualTo(Status.Code.OK);
    }
  }

  @Test
  void deletingAClusterClosesItsStreamAndStopsItsAgent() throws Exception {
    Installed a = install("to-delete", "observe");
    try (Agent agent = Agent.start(AgentConfig.fromEnv(a.env()), kube::client)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
      assertThat(
              hub.send("DELETE", "/api/v2/clusters/" + a.clusterId(), OWNER_TOKEN, null).status())
          .isEqualTo(204);
      assertThat(agent.exitCode().get(15, TimeUnit.SECONDS))
          .isEqualTo(Agent.EXIT_IDENTITY_REJECTED);
      assertThat(hub.get("/api/v2/clusters/" + a.clusterId(), OWNER_TOKEN).status()).isEqualTo(404);
      assertThat(audit("cluster.deleted", a.clusterId())).hasSize(1);
    }
  }
}
