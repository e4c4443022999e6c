package dev.gitopshq.hub.e2e;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.v1.AgentHubGrpc;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.ClusterIdentity;
import dev.gitopshq.agent.v1.Heartbeat;
import dev.gitopshq.agent.v1.Hello;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.RegisterRequest;
import dev.gitopshq.agent.v1.RegisterResponse;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import dev.gitopshq.testkube.TestKube;
import dev.gitopshq.workflows.registration.RegistrationOutcome;
import dev.gitopshq.workflows.registration.RegistrationState;
import dev.gitopshq.workflows.registration.RegistrationWorkflow;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.temporal.client.WorkflowClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Hub acceptance (double opt-in) through the whole path: a real agent registers with a token that
 * requires acceptance against the Fabric8 mock Kubernetes API; it stays connected but gets no work
 * until an admin accepts it; a rejected agent loses its token and its stream; the organization's
 * default applies unless the token says otherwise.
 */
@Tag("e2e")
class AcceptanceEndToEndIT {
  static HubTestSupport hub;
  static TestKube kube;
  static ManagedChannel channel;

  @BeforeAll
  static void start() {
    hub = HubTestSupport.sharedWithOpa();
    kube = TestKube.start().seedDemo();
    for (String node : List.of("node-a", "node-b")) {
      kube.client()
          .nodes()
          .resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build())
          .create();
    }
    channel = NettyChannelBuilder.forTarget(hub.grpcAddress()).usePlaintext().build();
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (kube != null) {
      kube.close();
    }
  }

  static String name(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  static JsonNode create(String token, String name, Boolean requireAcceptance) {
    Map<String, Object> body = new HashMap<>(Map.of("name", name, "environment", "staging"));
    if (requireAcceptance != null) {
      body.put("requireAcceptance", requireAcceptance);
    }
    Response r = hub.post("/api/v2/clusters", token, body);
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    return r.body();
  }

  static JsonNode cluster(String id) {
    return hub.get("/api/v2/clusters/" + id, OWNER_TOKEN).body();
  }

  static Map<String, String> agentEnv(String clusterName, Path identity, String registration) {
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_PLAINTEXT, "true");
    env.put(AgentConfig.AGENT_TOKEN_PATH, identity.toString());
    env.put(AgentConfig.REGISTRATION_TOKEN, registration);
    env.put(AgentConfig.CLUSTER_NAME, clusterName);
    env.put(AgentConfig.CAPABILITIES, "observe,kubernetes.scale");
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    env.put(AgentConfig.RECONNECT_MAX_SECONDS, "2");
    return env;
  }

  static Map<String, Object> scale(int replicas) {
    return Map.of(
        "type",
        "scale",
        "target",
        Map.of("namespace", "demo", "kind", "Deployment", "name", "web"),
        "params",
        Map.of("replicas", replicas),
        "reason",
        "acceptance test");
  }

  static int audited(String action, String clusterId) {
    return hub.get("/api/v2/audit?action=" + action + "&target=" + clusterId, OWNER_TOKEN)
        .body()
        .get("items")
        .size();
  }

  static String sha256(String s) throws Exception {
    return HexFormat.of()
        .formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aWaitingAgentStaysConnectedButGetsNoWorkUntilAnAdminAcceptsIt() throws Exception {
    String name = name("acc");
    JsonNode created = create(OWNER_TOKEN, name, true);
    String id = created.get("cluster").get("id").asText();
    Path identity = Files.createTempDirectory("agent").resolve("identity.json");
    try (Agent agent =
        Agent.start(
            AgentConfig.fromEnv(
                agentEnv(name, identity, created.get("registrationToken").asText())),
            kube::client)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();

      // The admin sees the waiting cluster live, with what its agent reported.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> cluster(id).get("acceptance").get("agentConnected").asBoolean());
      JsonNode pending = cluster(id);
      assertThat(pending.get("status").asText()).isEqualTo("PendingAcceptance");
      JsonNode reported = pending.get("acceptance");
      assertThat(reported.get("state").asText()).isEqualTo("pending");
      assertThat(reported.get("apiServerSha256").asText())
          .isEqualTo(sha256(kube.client().getMasterUrl().toString()));
      assertThat(reported.get("nodeCount").asInt()).isEqualTo(2);
      assertThat(reported.get("kubernetesVersion").asText()).isEqualTo("v1.32.0-testkube");
      assertThat(reported.get("agentVersion").asText()).isNotBlank();
      assertThat(pending.toString()).doesNotContain(kube.client().getMasterUrl().getHost() + ":");

      // No work: a command is refused naming the state, and the agent's inventory is ignored.
      int before =
          kube.client()
              .apps()
              .deployments()
              .inNamespace("demo")
              .withName("web")
              .get()
              .getSpec()
              .getReplicas();
      Response refused =
          hub.post("/api/v2/clusters/" + id + "/commands", OWNER_TOKEN, scale(before + 1));
      assertThat(refused.status()).as(refused.raw()).isEqualTo(409);
      assertThat(refused.raw()).contains("Pending acceptance");
      Thread.sleep(1500);
      assertThat(
              HubTestSupport.count(
                  "select count(*) from cluster_inventory where cluster_id = ?",
                  UUID.fromString(id)))
          .as("nothing the waiting agent sent beyond heartbeats is stored")
          .isZero();

      // Only an admin of the organization decides.
      String member = hub.memberToken("member");
      assertThat(hub.post("/api/v2/clusters/" + id + "/accept", member, null).status())
          .isEqualTo(403);
      JsonNode other = hub.createOrg(name("acc-org"));
      String otherOwner = other.get("ownerToken").asText();
      assertThat(hub.post("/api/v2/clusters/" + id + "/accept", otherOwner, null).status())
          .isEqualTo(404);
      assertThat(hub.get("/api/v2/clusters/" + id, otherOwner).status()).isEqualTo(404);

      int connects = agent.connectAttempts();
      Response accepted = hub.post("/api/v2/clusters/" + id + "/accept", OWNER_TOKEN, null);
      assertThat(accepted.status()).as(accepted.raw()).isEqualTo(200);
      assertThat(accepted.body().get("acceptance").get("state").asText()).isEqualTo("accepted");
      assertThat(accepted.body().get("status").asText()).isNotEqualTo("PendingAcceptance");
      assertThat(hub.post("/api/v2/clusters/" + id + "/accept", OWNER_TOKEN, null).status())
          .as("decided once")
          .isEqualTo(409);
      JsonNode entry =
          hub.get("/api/v2/audit?action=cluster.accepted&target=" + id, OWNER_TOKEN)
              .body()
              .get("items")
              .get(0);
      assertThat(entry.toString()).contains(reported.get("apiServerSha256").asText());

      // The agent reconnects at once into an ordinary stream; now a command runs.
      await().atMost(Duration.ofSeconds(15)).until(() -> agent.connectAttempts() > connects);
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
      Response policy =
          hub.send(
              "PUT",
              "/api/v2/clusters/" + id + "/approval-policy",
              OWNER_TOKEN,
              Map.of("autoApprove", List.of("scale")));
      assertThat(policy.status()).as(policy.raw()).isEqualTo(200);
      Response command =
          hub.post("/api/v2/clusters/" + id + "/commands", OWNER_TOKEN, scale(before + 1));
      assertThat(command.status()).as(command.raw()).isEqualTo(202);
      String commandId = command.body().get("id").asText();
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  "completed"
                      .equals(
                          hub.get("/api/v2/commands/" + commandId, OWNER_TOKEN)
                              .body()
                              .get("status")
                              .asText()));
      assertThat(
              kube.client()
                  .apps()
                  .deployments()
                  .inNamespace("demo")
                  .withName("web")
                  .get()
                  .getSpec()
                  .getReplicas())
          .isEqualTo(before + 1);

      // The registration workflow recorded the decision.
      String tokenId =
          hub.get("/api/v2/audit?action=cluster.registered&target=" + id, OWNER_TOKEN)
              .body()
              .get("items")
              .get(0)
              .get("details")
              .get("registrationTokenId")
              .asText();
      RegistrationOutcome outcome =
          hub.bean(WorkflowClient.class)
              .newUntypedWorkflowStub(RegistrationWorkflow.workflowId(tokenId))
              .getResult(10, TimeUnit.SECONDS, RegistrationOutcome.class);
      assertThat(outcome.state()).isEqualTo(RegistrationState.ACCEPTED);
    }
  }

  /** An agent on the wire: its registration and its stream. */
  static final class FakeAgent {
    final BlockingQueue<HubMessage> received = new LinkedBlockingQueue<>();
    final AtomicReference<Throwable> ended = new AtomicReference<>();
    StreamObserver<AgentMessage> out;
    String agentToken;

    static Metadata bearer(String token) {
      Metadata md = new Metadata();
      md.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
      return md;
    }

    static final ClusterIdentity IDENTITY =
        ClusterIdentity.newBuilder()
            .setApiServerUrlSha256("ab".repeat(32))
            .setNodeCount(7)
            .setKubernetesVersion("v1.31.4")
            .build();

    void register(String registrationToken, String clusterName) {
      RegisterResponse r =
          AgentHubGrpc.newBlockingStub(channel)
              .withInterceptors(
                  MetadataUtils.newAttachHeadersInterceptor(bearer(registrationToken)))
              .withDeadlineAfter(10, TimeUnit.SECONDS)
              .register(
                  RegisterRequest.newBuilder()
                      .setClusterName(clusterName)
                      .setAgentVersion("0.1.0")
                      .addCapabilities("observe")
                      .setIdentity(IDENTITY)
                      .build());
      agentToken = r.getAgentToken();
    }

    HubMessage connect() throws InterruptedException {
      out =
          AgentHubGrpc.newStub(channel)
              .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(bearer(agentToken)))
              .connect(
                  new StreamObserver<>() {
                    @Override
                    public void onNext(HubMessage m) {
                      received.add(m);
                    }

                    @Override
                    public void onError(Throwable t) {
                      ended.set(t);
                    }

                    @Override
                    public void onCompleted() {
                      ended.set(new IllegalStateException("completed"));
                    }
                  });
      out.onNext(
          AgentMessage.newBuilder()
              .setHello(
                  Hello.newBuilder()
                      .setAgentVersion("0.1.0")
                      .addCapabilities("observe")
                      .setIdentity(IDENTITY))
              .build());
      return received.poll(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aRejectedAgentLosesItsTokenAndItsStream() throws Exception {
    String name = name("rej");
    JsonNode created = create(OWNER_TOKEN, name, true);
    String id = created.get("cluster").get("id").asText();
    FakeAgent agent = new FakeAgent();
    agent.register(created.get("registrationToken").asText(), name);
    HubMessage welcome = agent.connect();
    assertThat(welcome.hasWelcome()).isTrue();
    assertThat(welcome.getWelcome().getPendingAcceptance()).isTrue();
    agent.out.onNext(
        AgentMessage.newBuilder().setHeartbeat(Heartbeat.newBuilder().setSequence(1)).build());
    assertThat(agent.received.poll(10, TimeUnit.SECONDS).hasHeartbeatAck())
        .as("a waiting agent's heartbeats are answered")
        .isTrue();

    JsonNode pending = cluster(id).get("acceptance");
    assertThat(pending.get("nodeCount").asInt()).isEqualTo(7);
    assertThat(pending.get("kubernetesVersion").asText()).isEqualTo("v1.31.4");

    Response rejected = hub.post("/api/v2/clusters/" + id + "/reject", OWNER_TOKEN, null);
    assertThat(rejected.status()).as(rejected.raw()).isEqualTo(200);
    assertThat(rejected.body().get("status").asText()).isEqualTo("Rejected");
    assertThat(rejected.body().get("acceptance").get("state").asText()).isEqualTo("rejected");
    assertThat(audited("cluster.rejected", id)).isEqualTo(1);

    await().atMost(Duration.ofSeconds(10)).until(() -> agent.ended.get() != null);
    assertThat(Status.fromThrowable(agent.ended.get()).getCode())
        .isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(
            HubTestSupport.count(
                "select count(*) from cluster_tokens where cluster_id = ? and kind = 'agent'"
                    + " and status = 'revoked'",
                UUID.fromString(id)))
        .isEqualTo(1);
    // The token no longer opens a stream.
    agent.ended.set(null);
    agent.connect();
    await().atMost(Duration.ofSeconds(10)).until(() -> agent.ended.get() != null);
    assertThat(Status.fromThrowable(agent.ended.get()).getCode())
        .isEqualTo(Status.Code.UNAUTHENTICATED);
    Response command = hub.post("/api/v2/clusters/" + id + "/commands", OWNER_TOKEN, scale(1));
    assertThat(command.status()).isEqualTo(409);
    assertThat(command.raw()).contains("Rejected");
  }

  @Test
  void theOrganizationsDefaultAppliesUnlessTheTokenSaysOtherwise() {
    JsonNode org = hub.createOrg(name("acc-default"));
    String owner = org.get("ownerToken").asText();
    assertThat(
            hub.get("/api/v2/clusters/acceptance", owner)
                .body()
                .get("requireAcceptance")
                .asBoolean())
        .isFalse();
    Response bad = hub.send("PUT", "/api/v2/clusters/acceptance", owner, Map.of());
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.raw()).contains("requireAcceptance");
    Response set =
        hub.send("PUT", "/api/v2/clusters/acceptance", owner, Map.of("requireAcceptance", true));
    assertThat(set.status()).as(set.raw()).isEqualTo(200);

    String byDefault = name("def");
    JsonNode a = create(owner, byDefault, null);
    new FakeAgent().register(a.get("registrationToken").asText(), byDefault);
    String optedOut = name("out");
    JsonNode b = create(owner, optedOut, false);
    new FakeAgent().register(b.get("registrationToken").asText(), optedOut);

    String aId = a.get("cluster").get("id").asText();
    String bId = b.get("cluster").get("id").asText();
    assertThat(hub.get("/api/v2/clusters/" + aId, owner).body().get("status").asText())
        .isEqualTo("PendingAcceptance");
    JsonNode notRequired = hub.get("/api/v2/clusters/" + bId, owner).body();
    assertThat(notRequired.has("acceptance")).as("no decision was required").isFalse();
    assertThat(notRequired.get("status").asText()).isNotEqualTo("PendingAcceptance");
    Response notPending = hub.post("/api/v2/clusters/" + bId + "/accept", owner, null);
    assertThat(notPending.status()).isEqualTo(409);
    assertThat(notPending.raw()).contains("does not wait for acceptance");

    // A token may also require it where the organization does not (the default organization).
    String joined = name("join");
    JsonNode c = create(OWNER_TOKEN, joined, null);
    String cId = c.get("cluster").get("id").asText();
    Response token =
        hub.post(
            "/api/v2/clusters/" + cId + "/join-token",
            OWNER_TOKEN,
            Map.of("requireAcceptance", true));
    assertThat(token.status()).as(token.raw()).isEqualTo(201);
    new FakeAgent().register(token.body().get("registrationToken").asText(), joined);
    assertThat(cluster(cId).get("status").asText()).isEqualTo("PendingAcceptance");
    // Another organization's admin cannot decide it.
    assertThat(hub.post("/api/v2/clusters/" + cId + "/reject", owner, null).status())
        .isEqualTo(404);
  }

  @Test
  void anIdentityThatBreaksItsBoundsIsRefused() {
    String name = name("bad");
    JsonNode created = create(OWNER_TOKEN, name, true);
    StatusRuntimeException e =
        catchThrowableOfType(
            StatusRuntimeException.class,
            () ->
                AgentHubGrpc.newBlockingStub(channel)
                    .withInterceptors(
                        MetadataUtils.newAttachHeadersInterceptor(
                            FakeAgent.bearer(created.get("registrationToken").asText())))
                    .withDeadlineAfter(10, TimeUnit.SECONDS)
                    .register(
                        RegisterRequest.newBuilder()
                            .setClusterName(name)
                            .setAgentVersion("0.1.0")
                            .setIdentity(
                                ClusterIdentity.newBuilder()
                                    .setApiServerUrlSha256("https://10.0.0.1:6443"))
                            .build()));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(e.getStatus().getDescription()).contains("identity.api_server_url_sha256");
  }
}
