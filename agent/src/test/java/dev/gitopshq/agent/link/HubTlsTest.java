package dev.gitopshq.agent.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.TlsServerCredentials;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.KeyManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's TLS modes against a hub with a self-signed certificate for 127.0.0.1: verified
 * against a private CA file, unverified with GITOPSHQ_HUB_INSECURE, and refused by default.
 */
class HubTlsTest {

  private static final char[] PASSWORD = "changeit".toCharArray();
  private static final Supplier<KubernetesClient> NO_KUBE =
      () -> {
        throw new AssertionError("file mode must not need a Kubernetes client");
      };

  @TempDir static Path keys;
  @TempDir Path temp;

  private static Path keystore;
  private static Path certificatePem;

  private FakeHub hub;
  private LogCapture logs;
  private Agent agent;

  @BeforeAll
  static void createSelfSignedCertificate() throws Exception {
    keystore = keys.resolve("hub.p12");
    certificatePem = keys.resolve("hub.pem");
    keytool(
        "-genkeypair",
        "-alias",
        "hub",
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        "CN=127.0.0.1",
        "-ext",
        "san=ip:127.0.0.1,dns:localhost",
        "-validity",
        "2",
        "-storetype",
        "PKCS12",
        "-keystore",
        keystore.toString(),
        "-storepass",
        "changeit",
        "-keypass",
        "changeit");
    keytool(
        "-exportcert",
        "-rfc",
        "-alias",
        "hub",
        "-keystore",
        keystore.toString(),
        "-storepass",
        "changeit",
        "-file",
        certificatePem.toString());
  }

  private static void keytool(String... args) throws Exception {
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    List<String> command = new ArrayList<>(List.of(keytool.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
  }

  @BeforeEach
  void startTlsHub() throws Exception {
    logs = new LogCapture();
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keystore)) {
      store.load(in, PASSWORD);
    }
    KeyManagerFactory keyManagers =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(store, PASSWORD);
    hub =
        new FakeHub()
            .startTls(
                TlsServerCredentials.newBuilder().keyManager(keyManagers.getKeyManagers()).build());
  }

  @AfterEach
  void stop() {
    if (agent != null) {
      agent.close();
    }
    hub.close();
    logs.close();
  }

  private AgentConfig config(String... extra) {
    Map<String, String> env = new HashMap<>();
    env.put("GITOPSHQ_HUB_ADDRESS", hub.address());
    env.put("GITOPSHQ_REGISTRATION_TOKEN", "ghqa_reg_" + "9d".repeat(32));
    env.put("GITOPSHQ_AGENT_TOKEN_PATH", temp.resolve("agent.json").toString());
    env.put("GITOPSHQ_STATUS_INTERVAL_SECONDS", "1");
    env.put("GITOPSHQ_RECONNECT_MAX_SECONDS", "1");
    for (int i = 0; i < extra.length; i += 2) {
      env.put(extra[i], extra[i + 1]);
    }
    return AgentConfig.fromEnv(env);
  }

  @Test
  void verifiesTheHubAgainstThePrivateCaFile() throws Exception {
    agent = Agent.start(config("GITOPSHQ_HUB_CA_FILE", certificatePem.toString()), NO_KUBE);

    assertThat(agent.awaitConnected(Duration.ofSeconds(10))).isTrue();
    assertThat(logs.text()).doesNotContain("WARNING");
  }

  @Test
  void skipsVerificationWithAWarningWhenInsecure() throws Exception {
    agent = Agent.start(config("GITOPSHQ_HUB_INSECURE", "true"), NO_KUBE);

    assertThat(agent.awaitConnected(Duration.ofSeconds(10))).isTrue();
    assertThat(logs.text()).contains("WARNING: GITOPSHQ_HUB_INSECURE=true");
  }

  @Test
  void refusesAnUntrustedCertificateByDefault() throws Exception {
    agent = Agent.start(config(), NO_KUBE);

    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> logs.text().contains("registration attempt failed (UNAVAILABLE"));
    assertThat(agent.isConnected()).isFalse();
    assertThat(hub.registerCalls).isEmpty();
  }
}
