package dev.gitopshq.agent.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.AgentVersion;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.identity.AgentIdentity;
import dev.gitopshq.agent.identity.FileIdentityStore;
import dev.gitopshq.agent.identity.SecretIdentityStore;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.AgentSettings;
import dev.gitopshq.agent.v1.CommandResult;
import dev.gitopshq.agent.v1.ExecuteCommand;
import dev.gitopshq.agent.v1.Hello;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.testkube.TestKube;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives the real agent against a fake AgentHub on a loopback port and checks the protocol from the
 * hub's side: who registers, with which header, what Hello says, when heartbeats arrive, and how
 * the agent reacts when the hub goes away or rejects it.
 */
class HubLinkTest {

  private static final String REGISTRATION_TOKEN = "ghqa_reg_" + "3c".repeat(32);
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Supplier<KubernetesClient> NO_KUBE =
      () -> {
        throw new AssertionError("file mode must not need a Kubernetes client");
      };

  @TempDir Path temp;

  private FakeHub hub;
  private LogCapture logs;
  private final List<Agent> agents = new ArrayList<>();

  @BeforeEach
  void startHub() {
    logs = new LogCapture();
    hub = new FakeHub().start();
  }

  @AfterEach
  void stopEverything() {
    agents.forEach(Agent::close);
    hub.close();
    logs.close();
    // Whatever the test did, no token may have reached the log.
    assertThat(logs.text())
        .doesNotContain(REGISTRATION_TOKEN)
        .doesNotContain(FakeHub.AGENT_TOKEN)
        .doesNotContain(REGISTRATION_TOKEN.substring("ghqa_reg_".length()))
        .doesNotContain(FakeHub.AGENT_TOKEN.substring("ghqa_".length()));
  }

  private Path identityFile() {
    return temp.resolve("identity/agent.json");
  }

  private AgentConfig config(String... overrides) {
    Map<String, String> env = new HashMap<>();
    env.put("GITOPSHQ_HUB_ADDRESS", hub.address());
    env.put("GITOPSHQ_HUB_PLAINTEXT", "true");
    env.put("GITOPSHQ_REGISTRATION_TOKEN", REGISTRATION_TOKEN);
    env.put("GITOPSHQ_AGENT_TOKEN_PATH", identityFile().toString());
    env.put("GITOPSHQ_CLUSTER_NAME", "prod-eu");
    env.put("GITOPSHQ_CAPABILITIES", "observe,argocd.read");
    env.put("GITOPSHQ_STATUS_INTERVAL_SECONDS", "1");
    env.put("GITOPSHQ_RECONNECT_MAX_SECONDS", "1");
    for (int i = 0; i < overrides.length; i += 2) {
      if (overrides[i + 1] == null) {
        env.remove(overrides[i]);
      } else {
        env.put(overrides[i], overrides[i + 1]);
      }
    }
    return AgentConfig.fromEnv(env);
  }

  private Agent start(AgentConfig config) {
    Agent agent = Agent.start(config, NO_KUBE);
    agents.add(agent);
    return agent;
  }

  private void storeIdentity(String token) {
    new FileIdentityStore(identityFile())
        .save(
            new AgentIdentity(
                FakeHub.CLUSTER_ID, token, hub.address(), Instant.parse("2025-03-01T12:00:00Z")));
  }

  @Test
  void firstRunRegistersOnceWithTheRegistrationTokenAndPersistsTheIdentity() throws Exception {
    Agent agent =
        start(
            config(
                "GITOPSHQ_DISPLAY_NAME",
                "Prod EU",
                "GITOPSHQ_PROVIDER",
                "eks",
                "GITOPSHQ_REGION",
                "eu-west-1",
                "GITOPSHQ_ENVIRONMENT",
                "production"));

    assertThat(agent.awaitConnected(WAIT)).isTrue();

    assertThat(hub.registerCalls).hasSize(1);
    FakeHub.RegisterCall call = hub.registerCalls.get(0);
    assertThat(call.authorization()).isEqualTo("Bearer " + REGISTRATION_TOKEN);
    assertThat(call.request().getClusterName()).isEqualTo("prod-eu");
    assertThat(call.request().getDisplayName()).isEqualTo("Prod EU");
    assertThat(call.request().getProvider()).isEqualTo("eks");
    assertThat(call.request().getRegion()).isEqualTo("eu-west-1");
    assertThat(call.request().getEnvironment()).isEqualTo("production");
    assertThat(call.request().getAgentVersion()).isEqualTo(AgentVersion.current());
    assertThat(call.request().getCapabilitiesList()).containsExactly("observe", "argocd.read");

    AgentIdentity saved = new FileIdentityStore(identityFile()).load().orElseThrow();
    assertThat(saved.clusterId()).isEqualTo(FakeHub.CLUSTER_ID);
    assertThat(saved.agentToken()).isEqualTo(FakeHub.AGENT_TOKEN);
    assertThat(saved.hubAddress()).isEqualTo(hub.address());

    assertThat(hub.streams.get(0).authorization).isEqualTo("Bearer " + FakeHub.AGENT_TOKEN);
    assertThat(agent.clusterId()).contains(FakeHub.CLUSTER_ID);
    assertThat(agent.registerCalls()).isEqualTo(1);
  }

  @Test
  void restartWithAStoredIdentityConnectsWithoutRegistering() throws Exception {
    String storedToken = "ghqa_" + "7f".repeat(32);
    storeIdentity(storedToken);

    Agent agent = start(config());

    assertThat(agent.awaitConnected(WAIT)).isTrue();
    assertThat(hub.registerCalls).isEmpty();
    assertThat(agent.registerCalls()).isZero();
    assertThat(hub.streams.get(0).authorization).isEqualTo("Bearer " + storedToken);
  }

  @Test
  void helloCarriesTheVersionCapabilitiesAndInterval() throws Exception {
    Agent agent = start(config());
    assertThat(agent.awaitConnected(WAIT)).isTrue();

    AgentMessage first = hub.streams.get(0).messages().get(0);
    assertThat(first.hasHello()).isTrue();
    Hello hello = first.getHello();
    assertThat(hello.getAgentVersion()).matches("\\d+\\.\\d+\\.\\d+").isEqualTo("0.1.0");
    assertThat(hello.getCapabilitiesList()).containsExactly("observe", "argocd.read");
    assertThat(hello.getHeartbeatIntervalSeconds()).isEqualTo(1);
    assertThat(hello.getStartedAt().getSeconds())
        .isBetween(Instant.now().minusSeconds(60).getEpochSecond(), Instant.now().getEpochSecond());
  }

  @Test
  void anOperatorScrapesTheAgentsOwnMetricsOnlyWhenAPortIsSet() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Agent quiet = start(config());
    assertThat(quiet.metricsPort()).isEmpty();
    Agent agent = start(config("GITOPSHQ_METRICS_PORT", String.valueOf(port)));
    assertThat(agent.metricsPort()).hasValue(port);
    assertThat(agent.awaitConnected(WAIT)).isTrue();
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    java.net.URI uri = java.net.URI.create("http://127.0.0.1:" + port + "/metrics");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              String scrape =
                  http.send(
                          java.net.http.HttpRequest.newBuilder(uri).build(),
                          java.net.http.HttpResponse.BodyHandlers.ofString())
                      .body();
              assertThat(scrape)
                  .contains("gitopshq_agent_connected 1.0")
                  .contains("gitopshq_agent_connects_total")
                  .contains("gitopshq_agent_heartbeats_sent_total")
                  .contains("jvm_memory_used_bytes");
            });
    java.net.http.HttpResponse<String> post =
        http.send(
            java.net.http.HttpRequest.newBuilder(uri)
                .POST(java.net.http.HttpRequest.BodyPublishers.noBody())
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
    agent.close();
    // Closed with the agent: the port is free again.
    try (java.net.ServerSocket again = new java.net.ServerSocket(port)) {
      assertThat(again.getLocalPort()).isEqualTo(port);
    }
  }

  @Test
  void aMetricsPortThatIsNoPortIsAConfigError() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> config("GITOPSHQ_METRICS_PORT", "70000"))
        .hasMessageContaining("GITOPSHQ_METRICS_PORT")
        .hasMessageContaining("0 (no endpoint) to 65535");
  }

  @Test
  void heartbeatsArriveAtTheConfiguredIntervalWithIncreasingSequence() throws Exception {
    Agent agent = start(config());
    assertThat(agent.awaitConnected(WAIT)).isTrue();

    FakeHub.Stream stream = hub.streams.get(0);
    await().atMost(WAIT).until(() -> stream.heartbeats().size() >= 3);

    List<FakeHub.Received> beats = stream.heartbeats().subList(0, 3);
    assertThat(beats)
        .extracting(r -> r.message().getHeartbeat().getSequence())
        .containsExactly(1L, 2L, 3L);
    for (int i = 1; i < beats.size(); i++) {
      long gapMillis =
          TimeUnit.NANOSECONDS.toMillis(beats.get(i).nanos() - beats.get(i - 1).nanos());
      assertThat(gapMillis).as("gap between heartbeats").isBetween(600L, 1600L);
    }
    assertThat(beats.get(0).message().getHeartbeat().getSentAt().getSeconds()).isPositive();
    assertThat(agent.heartbeatsSent()).isGreaterThanOrEqualTo(3);
  }

  @Test
  void adoptsTheHubsHeartbeatIntervalWhenNoneIsConfigured() throws Exception {
    hub.settings = AgentSettings.newBuilder().setHeartbeatIntervalSeconds(1).build();
    storeIdentity(FakeHub.AGENT_TOKEN);

    Agent agent = start(config("GITOPSHQ_STATUS_INTERVAL_SECONDS", null));
    assertThat(agent.awaitConnected(WAIT)).isTrue();

    // Without a stored hub setting, Hello announces the default; Welcome then sets 1 s.
    assertThat(hub.streams.get(0).messages().get(0).getHello().getHeartbeatIntervalSeconds())
        .isEqualTo(30);
    await().atMost(Duration.ofSeconds(4)).until(() -> hub.streams.get(0).heartbeats().size() >= 2);
  }

  @Test
  void reconnectsWhenTheHubComesBackOnTheSamePort() throws Exception {
    Agent agent = start(config());
    assertThat(agent.awaitConnected(WAIT)).isTrue();

    hub.stop();
    await().atMost(WAIT).until(() -> !agent.isConnected());
    hub.restart();

    await().atMost(WAIT).until(() -> hub.streams.size() >= 2 && agent.isConnected());
    FakeHub.Stream again = hub.streams.get(hub.streams.size() - 1);
    assertThat(again.messages().get(0).hasHello()).isTrue();
    assertThat(again.authorization).isEqualTo("Bearer " + FakeHub.AGENT_TOKEN);
    assertThat(hub.registerCalls).hasSize(1);
    assertThat(logs.text())
        .contains("disconnected from hub " + hub.address())
        .containsPattern("reconnecting in \\d+\\.\\d s");
  }

  @Test
  void retriesRegistrationWhileTheHubIsUnavailable() throws Exception {
    hub.registerErrors.add(Status.UNAVAILABLE.withDescription("hub is starting"));

    Agent agent = start(config());

    assertThat(agent.awaitConnected(WAIT)).isTrue();
    assertThat(hub.registerCalls).hasSize(2);
    assertThat(logs.text()).contains("registration attempt failed (UNAVAILABLE: hub is starting)");
  }

  @Test
  void stopsWithExitCodeThreeWhenTheHubRejectsTheAgentIdentity() throws Exception {
    hub.connectError = Status.UNAUTHENTICATED.withDescription("unknown token");
    storeIdentity(FakeHub.AGENT_TOKEN);

    Agent agent = start(config());

    assertThat(agent.exitCode().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(3);
    Thread.sleep(1_500);
    assertThat(hub.streams).hasSize(1);
    assertThat(agent.isConnected()).isFalse();
    assertThat(logs.text())
        .contains("rejected the agent identity of cluster " + FakeHub.CLUSTER_ID)
        .contains("not retrying with this identity");
  }

  @Test
  void stopsWithExitCodeTwoWhenTheRegistrationTokenIsRejected() throws Exception {
    hub.registerErrors.add(Status.UNAUTHENTICATED.withDescription("invalid token"));

    Agent agent = start(config());

    assertThat(agent.exitCode().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(hub.registerCalls).hasSize(1);
    assertThat(hub.streams).isEmpty();
    assertThat(new FileIdentityStore(identityFile()).load()).isEmpty();
    assertThat(logs.text())
        .contains(
            "registration token was rejected (unknown, expired or"
                + " already used); issue a new one with POST /api/v2/clusters/{id}/join-token");
  }

  @Test
  void stopsWithExitCodeTwoAndTheHubsReasonWhenTheRegistrationIsRefused() throws Exception {
    hub.registerErrors.add(
        Status.FAILED_PRECONDITION.withDescription(
            "cluster name 'prod-eu' does not match the registered name 'prod-us'"));

    Agent agent = start(config());

    assertThat(agent.exitCode().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(logs.text()).contains("does not match the registered name 'prod-us'");
  }

  @Test
  void stopsWithExitCodeTwoWithoutIdentityOrRegistrationToken() throws Exception {
    Agent agent = start(config("GITOPSHQ_REGISTRATION_TOKEN", null));

    assertThat(agent.exitCode().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(hub.registerCalls).isEmpty();
    assertThat(logs.text())
        .contains(
            "no identity found at file "
                + identityFile().toAbsolutePath()
                + " and GITOPSHQ_REGISTRATION_TOKEN is not set; create a join token with"
                + " POST /api/v2/clusters/{id}/join-token");
  }

  @Test
  void redactsTokensEvenWhenTheHubEchoesThem() throws Exception {
    hub.registerErrors.add(
        Status.UNAVAILABLE.withDescription("overloaded while checking " + REGISTRATION_TOKEN));

    Agent agent = start(config());

    assertThat(agent.awaitConnected(WAIT)).isTrue();
    assertThat(logs.text()).contains("overloaded while checking ghqa_<redacted>");
  }

  @Test
  void persistsTheIdentityInASecretInSecretMode() throws Exception {
    try (TestKube kube = TestKube.start()) {
      kube.client()
          .namespaces()
          .resource(
              new NamespaceBuilder()
                  .withNewMetadata()
                  .withName("gitopshq-system")
                  .endMetadata()
                  .build())
          .create();
      Agent agent =
          Agent.start(
              config("GITOPSHQ_IDENTITY_STORE_MODE", "secret", "POD_NAMESPACE", "gitopshq-system"),
              kube::client);
      agents.add(agent);

      assertThat(agent.awaitConnected(WAIT)).isTrue();

      SecretIdentityStore store =
          new SecretIdentityStore(kube::client, "gitopshq-system", "gitopshq-agent-identity");
      assertThat(store.load())
          .hasValueSatisfying(
              identity -> {
                assertThat(identity.clusterId()).isEqualTo(FakeHub.CLUSTER_ID);
                assertThat(identity.agentToken()).isEqualTo(FakeHub.AGENT_TOKEN);
              });
      agent.close();
    }
  }

  @Test
  void handsOtherHubMessagesToTheHandlerAndSendsItsAnswers() throws Exception {
    storeIdentity(FakeHub.AGENT_TOKEN);
    BlockingQueue<HubMessage> received = new LinkedBlockingQueue<>();
    ManagedChannel channel = ManagedChannelBuilder.forTarget(hub.address()).usePlaintext().build();
    HubLink link =
        new HubLink(config(), channel, AgentVersion.current(), Instant.now(), received::add);
    Thread runner =
        new Thread(
            () -> {
              try {
                link.run(new FileIdentityStore(identityFile()).load().orElseThrow());
              } catch (LinkFailure e) {
                throw new AssertionError(e);
              }
            });
    runner.start();
    try {
      assertThat(link.awaitConnected(WAIT)).isTrue();
      HubMessage command =
          HubMessage.newBuilder()
              .setCorrelationId("cmd-1")
              .setExecuteCommand(ExecuteCommand.newBuilder().setCommandId("cmd-1").setType("scale"))
              .build();

      hub.streams.get(0).toAgent.onNext(command);

      assertThat(received.poll(5, TimeUnit.SECONDS)).isEqualTo(command);
      assertThat(
              link.send(
                  AgentMessage.newBuilder()
                      .setCorrelationId("cmd-1")
                      .setCommandResult(
                          CommandResult.newBuilder()
                              .setCommandId("cmd-1")
                              .setOutcome(CommandResult.Outcome.SUCCEEDED))
                      .build()))
          .isTrue();
      await()
          .atMost(WAIT)
          .until(
              () ->
                  hub.streams.get(0).messages().stream()
                      .anyMatch(m -> m.hasCommandResult() && m.getCorrelationId().equals("cmd-1")));
    } finally {
      link.close();
      runner.join(5_000);
      channel.shutdownNow();
    }
    assertThat(link.send(AgentMessage.getDefaultInstance())).isFalse();
  }

  @Test
  void closeEndsTheStreamCleanly() throws Exception {
    Agent agent = start(config());
    assertThat(agent.awaitConnected(WAIT)).isTrue();

    agent.close();

    assertThat(agent.exitCode()).isCompletedWithValue(0);
    await().atMost(WAIT).until(() -> hub.streams.get(0).halfClosedByAgent);
    assertThat(hub.streams.get(0).errorFromAgent).isNull();
    assertThat(agent.isConnected()).isFalse();
  }
}
