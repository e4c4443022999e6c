package dev.gitopshq.agent.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.TlsServerCredentials;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.KeyManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The agent behind an HTTP CONNECT proxy: a real (tiny) proxy on a loopback port between the real
 * agent and a fake hub. Checks that Register and Connect go through the tunnel, that credentials
 * from the proxy URL arrive as basic auth and never reach the log, that NO_PROXY exempts the hub,
 * and that a TLS hub is reached through HTTPS_PROXY with TLS end to end.
 */
class HubProxyTest {

  private static final String REGISTRATION_TOKEN = "ghqa_reg_" + "4e".repeat(32);
  private static final String PROXY_USER = "agent@corp";
  private static final String PROXY_PASSWORD = "Pr0xy-s3cret:with@chars";

  /** The user-info as it appears in the URL, percent-encoded. */
  private static final String PROXY_USER_INFO = "agent%40corp:Pr0xy-s3cret%3Awith%40chars";

  private static final String BASIC =
      "Basic "
          + Base64.getEncoder()
              .encodeToString((PROXY_USER + ":" + PROXY_PASSWORD).getBytes(StandardCharsets.UTF_8));
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Supplier<KubernetesClient> NO_KUBE =
      () -> {
        throw new AssertionError("file mode must not need a Kubernetes client");
      };

  @TempDir Path temp;

  private FakeHub hub;
  private ConnectProxy proxy;
  private LogCapture logs;
  private final List<Agent> agents = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeEach
  void start() {
    logs = new LogCapture();
    proxy = new ConnectProxy();
  }

  @AfterEach
  void stopEverything() throws Exception {
    agents.forEach(Agent::close);
    if (hub != null) {
      hub.close();
    }
    proxy.close();
    for (AutoCloseable closeable : closeables) {
      closeable.close();
    }
    logs.close();
    // Whatever the test did, neither the proxy password nor a token may have reached the log.
    assertThat(logs.text())
        .doesNotContain("Pr0xy-s3cret")
        .doesNotContain("with%40chars")
        .doesNotContain(BASIC.substring("Basic ".length()))
        .doesNotContain(REGISTRATION_TOKEN)
        .doesNotContain(FakeHub.AGENT_TOKEN);
  }

  private AgentConfig config(String hubAddress, boolean plaintext, String... overrides) {
    Map<String, String> env = new HashMap<>();
    env.put("GITOPSHQ_HUB_ADDRESS", hubAddress);
    env.put("GITOPSHQ_HUB_PLAINTEXT", Boolean.toString(plaintext));
    env.put("GITOPSHQ_REGISTRATION_TOKEN", REGISTRATION_TOKEN);
    env.put("GITOPSHQ_AGENT_TOKEN_PATH", temp.resolve("identity/agent.json").toString());
    env.put("GITOPSHQ_STATUS_INTERVAL_SECONDS", "1");
    env.put("GITOPSHQ_RECONNECT_MAX_SECONDS", "1");
    for (int i = 0; i < overrides.length; i += 2) {
      env.put(overrides[i], overrides[i + 1]);
    }
    return AgentConfig.fromEnv(env);
  }

  private AgentConfig plaintext(String... overrides) {
    return config(hub.address(), true, overrides);
  }

  private Agent startAgent(AgentConfig config) {
    Agent agent = Agent.start(config, NO_KUBE);
    agents.add(agent);
    return agent;
  }

  private int hubPort() {
    return Integer.parseInt(hub.address().substring(hub.address().lastIndexOf(':') + 1));
  }

  @Test
  void registersConnectsAndHeartbeatsThroughTheHttpProxy() throws Exception {
    hub = new FakeHub().start();

    Agent agent = startAgent(plaintext("HTTP_PROXY", proxy.url()));

    assertThat(agent.awaitConnected(WAIT)).isTrue();
    await().atMost(WAIT).until(() -> hub.streams.get(0).heartbeats().size() >= 2);
    assertThat(hub.registerCalls).hasSize(1);
    assertThat(hub.streams).hasSize(1);

    // One channel, one tunnel: Register and Connect are HTTP/2 streams inside it.
    assertThat(proxy.tunnels).hasSize(1);
    ConnectProxy.Tunnel tunnel = proxy.tunnels.get(0);
    assertThat(tunnel.requestLine).isEqualTo("CONNECT 127.0.0.1:" + hubPort() + " HTTP/1.1");
    assertThat(tunnel.proxyAuthorization()).isEmpty();
    assertThat(tunnel.firstBytesUp()).startsWith("PRI * HTTP/2.0");
    assertThat(tunnel.bytesUp.get()).isPositive();
    assertThat(tunnel.bytesDown.get()).isPositive();

    assertThat(logs.text())
        .contains(
            "Hub "
                + hub.address()
                + " is reached through the HTTP CONNECT proxy "
                + proxy.url()
                + " (HTTP_PROXY)");
  }

  @Test
  void aLoneLowercaseHttpsProxyAlsoCarriesPlaintextAndResolvesTheHubName() throws Exception {
    hub = new FakeHub().start();
    // Only the proxy knows this name: connecting proves nothing bypassed the tunnel.
    proxy.hosts.put("hub.gitopshq.test", InetAddress.getLoopbackAddress());
    String hubAddress = "hub.gitopshq.test:" + hubPort();

    Agent agent = startAgent(config(hubAddress, true, "https_proxy", proxy.url()));

    assertThat(agent.awaitConnected(WAIT)).isTrue();
    assertThat(hub.registerCalls).hasSize(1);
    assertThat(proxy.tunnels).extracting(t -> t.target).containsOnly(hubAddress);
    assertThat(logs.text())
        .contains("through the HTTP CONNECT proxy " + proxy.url() + " (https_proxy)");
  }

  @Test
  void sendsTheUrlsCredentialsAsBasicProxyAuthorizationAndMasksThePassword() throws Exception {
    hub = new FakeHub().start();
    proxy.requiredAuthorization = BASIC;

    Agent agent = startAgent(plaintext("HTTP_PROXY", proxy.url(PROXY_USER_INFO)));

    assertThat(agent.awaitConnected(WAIT)).isTrue();
    assertThat(proxy.tunnels)
        .isNotEmpty()
        .allSatisfy(t -> assertThat(t.proxyAuthorization()).contains(BASIC));
    assertThat(logs.text())
        .contains(
            "through the HTTP CONNECT proxy http://"
                + PROXY_USER
                + ":****@127.0.0.1:"
                + proxy.port()
                + " (HTTP_PROXY)");
  }

  @Test
  void rejectedProxyCredentialsAreRetriedWithoutLoggingThem() throws Exception {
    hub = new FakeHub().start();
    proxy.requiredAuthorization = "Basic bm90OnRoaXM=";

    Agent agent = startAgent(plaintext("HTTP_PROXY", proxy.url(PROXY_USER_INFO)));

    await().atMost(WAIT).until(() -> proxy.tunnels.size() >= 2);
    await().atMost(WAIT).until(() -> logs.text().contains("407"));
    assertThat(agent.isConnected()).isFalse();
    assertThat(hub.registerCalls).isEmpty();
    assertThat(agent.exitCode()).isNotDone();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "127.0.0.1",
        "example.com, 127.0.0.0/8",
        "127.0.0.1:{port}",
        "*",
        " .example.com ,[::1],127.0.0.1 "
      })
  void connectsDirectlyWhenNoProxyMatchesTheHub(String noProxy) throws Exception {
    hub = new FakeHub().start();
    String entries = noProxy.replace("{port}", Integer.toString(hubPort()));

    Agent agent =
        startAgent(
            plaintext(
                "HTTP_PROXY",
                proxy.url(PROXY_USER_INFO),
                "HTTPS_PROXY",
                proxy.url(PROXY_USER_INFO),
                "NO_PROXY",
                entries));

    assertThat(agent.awaitConnected(WAIT)).isTrue();
    assertThat(hub.registerCalls).hasSize(1);
    assertThat(proxy.tunnels).isEmpty();
    assertThat(logs.text())
        .contains("Hub " + hub.address() + " matches NO_PROXY entry '")
        .contains(
            "connecting directly, not through the proxy http://"
                + PROXY_USER
                + ":****@127.0.0.1:"
                + proxy.port()
                + " (HTTP_PROXY)");
  }

  @Test
  void noProxyEntriesForOtherHostsOrPortsLeaveTheHubBehindTheProxy() throws Exception {
    hub = new FakeHub().start();

    Agent agent =
        startAgent(
            plaintext(
                "http_proxy",
                proxy.url(),
                "no_proxy",
                "localhost,.cluster.local,10.0.0.0/8,127.0.0.1:1,127.0.0.2"));

    assertThat(agent.awaitConnected(WAIT)).isTrue();
    assertThat(proxy.tunnels).hasSize(1);
    assertThat(proxy.tunnels.get(0).target).isEqualTo(hub.address());
  }

  @Test
  void aTlsHubIsReachedThroughHttpsProxyWithTlsInsideTheTunnel() throws Exception {
    Path keystore = temp.resolve("hub.p12");
    Path certificate = temp.resolve("hub.pem");
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
        "san=ip:127.0.0.1",
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
        certificate.toString());
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(keystore)) {
      store.load(in, "changeit".toCharArray());
    }
    KeyManagerFactory keyManagers =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(store, "changeit".toCharArray());
    hub =
        new FakeHub()
            .startTls(
                TlsServerCredentials.newBuilder().keyManager(keyManagers.getKeyManagers()).build());
    ConnectProxy plaintextProxy = new ConnectProxy();
    closeables.add(plaintextProxy);

    Agent agent =
        startAgent(
            config(
                hub.address(),
                false,
                "GITOPSHQ_HUB_CA_FILE",
                certificate.toString(),
                "HTTPS_PROXY",
                proxy.url(PROXY_USER_INFO),
                "HTTP_PROXY",
                plaintextProxy.url()));

    assertThat(agent.awaitConnected(WAIT)).isTrue();
    assertThat(proxy.tunnels).hasSize(1);
    assertThat(proxy.tunnels.get(0).target).isEqualTo(hub.address());
    assertThat(proxy.tunnels.get(0).proxyAuthorization()).contains(BASIC);
    // A TLS ClientHello (handshake record, TLS 1.x), not HTTP/2 in the clear.
    assertThat(proxy.tunnels.get(0).firstBytesUp().charAt(0)).isEqualTo((char) 0x16);
    assertThat(plaintextProxy.tunnels).isEmpty();
    assertThat(logs.text()).contains("(HTTPS_PROXY)");
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
}
