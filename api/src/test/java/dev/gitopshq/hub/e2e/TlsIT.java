package dev.gitopshq.hub.e2e;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.hub.GatewayTlsFiles;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.testkube.TestKube;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The gateway serving TLS with a certificate from a private CA (made with openssl, as `make run`
 * does): an agent given the CA bundle connects; one without it keeps failing the handshake and
 * never registers; insecure mode connects without verification.
 */
class TlsIT {
  static Path dir;
  static HubTestSupport hub;
  static TestKube kube;

  @BeforeAll
  static void start() throws Exception {
    dir = GatewayTlsFiles.create("gitopshq-tls");
    kube = TestKube.start();
    hub =
        new HubTestSupport()
            .property("gitopshq.agent.tls-cert-file", dir.resolve("hub.crt"))
            .property("gitopshq.agent.tls-key-file", dir.resolve("hub.key"))
            .start();
  }

  @AfterAll
  static void stop() {
    hub.close();
    kube.close();
  }

  static String lastClusterId;

  static Map<String, String> env(String name, Map<String, String> tls) throws Exception {
    JsonNode created = hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name)).body();
    lastClusterId = created.get("cluster").get("id").asText();
    Map<String, String> env = new HashMap<>(tls);
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(
        AgentConfig.AGENT_TOKEN_PATH,
        Files.createTempDirectory("agent").resolve("id.json").toString());
    env.put(AgentConfig.CLUSTER_NAME, name);
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    env.put(AgentConfig.RECONNECT_MAX_SECONDS, "1");
    env.put(AgentConfig.REGISTRATION_TOKEN, created.get("registrationToken").asText());
    return env;
  }

  @Test
  void anAgentTrustingThePrivateCaConnects() throws Exception {
    try (Agent agent =
        Agent.start(
            AgentConfig.fromEnv(
                env("tls-ca", Map.of(AgentConfig.HUB_CA_FILE, dir.resolve("ca.crt").toString()))),
            kube::client)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
    }
  }

  @Test
  void anAgentWithoutTheCaNeverGetsThroughTheHandshake() throws Exception {
    try (Agent agent = Agent.start(AgentConfig.fromEnv(env("tls-no-ca", Map.of())), kube::client)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(5))).isFalse();
      // The handshake failed before Register could reach the hub: the token is still unused.
      assertThat(
              hub.get("/api/v2/clusters/" + lastClusterId, OWNER_TOKEN)
                  .body()
                  .get("status")
                  .asText())
          .isEqualTo("Pending");
      assertThat(agent.exitCode().isDone()).as("it keeps retrying, it does not give up").isFalse();
    }
  }

  @Test
  void insecureModeConnectsWithoutVerification() throws Exception {
    try (Agent agent =
        Agent.start(
            AgentConfig.fromEnv(env("tls-insecure", Map.of(AgentConfig.HUB_INSECURE, "true"))),
            kube::client)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
    }
  }

  @Test
  void aPlaintextAgentCannotTalkToATlsHub() throws Exception {
    try (Agent agent =
        Agent.start(
            AgentConfig.fromEnv(env("tls-plain", Map.of(AgentConfig.HUB_PLAINTEXT, "true"))),
            kube::client)) {
      assertThat(agent.awaitConnected(Duration.ofSeconds(5))).isFalse();
      assertThat(agent.exitCode().isDone()).isFalse();
    }
  }
}
