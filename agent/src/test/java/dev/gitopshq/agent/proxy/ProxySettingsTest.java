package dev.gitopshq.agent.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.config.ConfigException;
import io.grpc.HttpConnectProxiedSocketAddress;
import io.grpc.ProxiedSocketAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Proxy configuration without a network: parsing and validating HTTPS_PROXY / HTTP_PROXY /
 * NO_PROXY, which variable applies to TLS and to plaintext, NO_PROXY matching, and what the
 * detector hands to gRPC.
 */
class ProxySettingsTest {

  /** The detector the agent's hub channel gets for this configuration. */
  private static java.util.Optional<io.grpc.ProxyDetector> detector(AgentConfig config) {
    return HubProxyDetector.forHub(config.hubAddress(), config.hubPlaintext(), config.proxy());
  }

  private static AgentConfig parse(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("GITOPSHQ_HUB_ADDRESS", "hub.example.com:443");
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return AgentConfig.fromEnv(env);
  }

  private static Optional<String> hubProxy(boolean plaintext, String... pairs) {
    String[] all = new String[pairs.length + 2];
    all[0] = "GITOPSHQ_HUB_PLAINTEXT";
    all[1] = Boolean.toString(plaintext);
    System.arraycopy(pairs, 0, all, 2, pairs.length);
    return parse(all).hubProxy().map(ProxyUrl::toString);
  }

  // --- which variable applies -------------------------------------------------------------

  @Test
  void tlsUsesHttpsProxyAndPlaintextUsesHttpProxyWhenBothAreSet() {
    String[] both = {
      "HTTPS_PROXY", "http://tls-proxy:3128", "HTTP_PROXY", "http://plain-proxy:8080"
    };
    assertThat(hubProxy(false, both)).contains("http://tls-proxy:3128 (HTTPS_PROXY)");
    assertThat(hubProxy(true, both)).contains("http://plain-proxy:8080 (HTTP_PROXY)");
  }

  @Test
  void aLoneProxyVariableServesBothKindsOfConnection() {
    assertThat(hubProxy(false, "HTTP_PROXY", "http://p:1")).contains("http://p:1 (HTTP_PROXY)");
    assertThat(hubProxy(true, "HTTPS_PROXY", "http://p:1")).contains("http://p:1 (HTTPS_PROXY)");
  }

  @Test
  void upperCaseWinsOverLowerCaseAndLowerCaseWorksAlone() {
    assertThat(hubProxy(false, "HTTPS_PROXY", "http://upper:1", "https_proxy", "http://lower:2"))
        .contains("http://upper:1 (HTTPS_PROXY)");
    assertThat(hubProxy(false, "https_proxy", "http://lower:2"))
        .contains("http://lower:2 (https_proxy)");
    assertThat(hubProxy(true, "http_proxy", "http://lower:3"))
        .contains("http://lower:3 (http_proxy)");
    // Helm renders unset values empty: a blank upper-case variable counts as unset.
    assertThat(hubProxy(false, "HTTPS_PROXY", "  ", "https_proxy", "http://lower:2"))
        .contains("http://lower:2 (https_proxy)");
    assertThat(parse("NO_PROXY", "", "no_proxy", "a.example, B.Example ,,").proxy().noProxy())
        .containsExactly("a.example", "b.example");
  }

  @Test
  void noProxyVariablesMeansNoProxy() {
    AgentConfig config = parse("HTTPS_PROXY", "", "NO_PROXY", "example.com");
    assertThat(config.hubProxy()).isEmpty();
    assertThat(config.proxy().httpsProxy()).isEmpty();
    assertThat(config.proxy().httpProxy()).isEmpty();
    assertThat(detector(config)).isEmpty();
  }

  // --- parsing ----------------------------------------------------------------------------

  @Test
  void parsesCredentialsHostAndPort() {
    ProxyUrl url =
        parse("HTTPS_PROXY", " http://agent%40corp:p%3Ass+w%2Fd@Proxy.Corp:3128/ ")
            .hubProxy()
            .orElseThrow();
    assertThat(url.variable()).isEqualTo("HTTPS_PROXY");
    assertThat(url.host()).isEqualTo("proxy.corp");
    assertThat(url.port()).isEqualTo(3128);
    assertThat(url.username()).contains("agent@corp");
    assertThat(url.password()).contains("p:ss+w/d");
    assertThat(url.masked()).isEqualTo("http://agent@corp:****@proxy.corp:3128");
  }

  @Test
  void acceptsAUrlWithoutSchemeOrPortAndIpv6Hosts() {
    ProxyUrl bare = parse("HTTPS_PROXY", "proxy.corp").hubProxy().orElseThrow();
    assertThat(bare.host()).isEqualTo("proxy.corp");
    assertThat(bare.port()).isEqualTo(80);
    assertThat(bare.username()).isEmpty();
    assertThat(bare.password()).isEmpty();

    ProxyUrl userOnly = parse("HTTPS_PROXY", "HTTP://bob@10.0.0.1:8080").hubProxy().orElseThrow();
    assertThat(userOnly.username()).contains("bob");
    assertThat(userOnly.password()).isEmpty();
    assertThat(userOnly.masked()).isEqualTo("http://bob@10.0.0.1:8080");

    ProxyUrl v6 = parse("HTTPS_PROXY", "http://[fd00::1]:3128").hubProxy().orElseThrow();
    assertThat(v6.host()).isEqualTo("fd00::1");
    assertThat(v6.masked()).isEqualTo("http://[fd00::1]:3128");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "HTTPS_PROXY | http://user:hunter2@",
        "https_proxy | http://user:hunter2@proxy:99999",
        "HTTP_PROXY  | http://user:hunter2@proxy:port",
        "http_proxy  | http://user:hunter2@proxy:3128/some/path",
        "HTTPS_PROXY | http://user:hunter2@proxy:3128?x=1",
        "HTTPS_PROXY | http://us er:hunter2@proxy:3128",
        "HTTPS_PROXY | http://user:hunter2%zz@proxy:3128",
        "HTTPS_PROXY | http://:hunter2@proxy:3128",
        "HTTPS_PROXY | https://user:hunter2@proxy:3128",
        "HTTP_PROXY  | socks5://user:hunter2@proxy:1080",
        "HTTP_PROXY  | ://user:hunter2@proxy",
        "HTTP_PROXY  | /x://user:hunter2@proxy",
        "HTTP_PROXY  | http://user:hunter2@with-at@proxy:3128",
        "HTTP_PROXY  | http://user:hunter2/with-slash@proxy:3128"
      })
  void anInvalidProxyUrlIsAConfigurationErrorNamingTheVariableWithoutThePassword(
      String variable, String value) {
    assertThatThrownBy(() -> parse(variable, value))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e -> {
              assertThat(e.variable()).isEqualTo(variable);
              assertThat(e.getMessage()).startsWith(variable + " ").doesNotContain("hunter2");
            });
  }

  @Test
  void theUnusedVariableIsValidatedToo() {
    // HTTP_PROXY is not used for a TLS hub when HTTPS_PROXY is set, but a typo is still reported.
    assertThatThrownBy(() -> parse("HTTPS_PROXY", "http://ok:1", "HTTP_PROXY", "ftp://x"))
        .isInstanceOfSatisfying(
            ConfigException.class, e -> assertThat(e.variable()).isEqualTo("HTTP_PROXY"));
  }

  @Test
  void toStringMasksTheProxyPasswords() {
    AgentConfig config =
        parse(
            "HTTPS_PROXY",
            "http://u:hunter2@proxy:3128",
            "http_proxy",
            "http://v:s3cret@proxy:8080",
            "NO_PROXY",
            ".svc,10.0.0.0/8");
    assertThat(config.toString())
        .doesNotContain("hunter2")
        .doesNotContain("s3cret")
        .contains(
            "proxy=ProxySettings[httpsProxy=http://u:****@proxy:3128 (HTTPS_PROXY)"
                + ", httpProxy=http://v:****@proxy:8080 (http_proxy), noProxy=[.svc, 10.0.0.0/8]]");
    assertThat(config.proxy().httpsProxy().orElseThrow().toString()).doesNotContain("hunter2");
  }

  // --- NO_PROXY matching ------------------------------------------------------------------

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        // entries                         | host                  | port | matching entry
        "*                                 | hub.example.com       | 443  | *",
        "example.com                       | example.com           | 443  | example.com",
        "example.com                       | hub.example.com       | 443  | example.com",
        "Example.COM.                      | HUB.example.com.      | 443  | example.com.",
        "*.example.com                     | hub.example.com       | 443  | *.example.com",
        ".example.com                      | a.b.example.com       | 443  | .example.com",
        "other.org,example.com:443         | hub.example.com       | 443  | example.com:443",
        "10.0.0.0/8                        | 10.20.30.40           | 443  | 10.0.0.0/8",
        "172.16.0.0/12                     | 172.31.255.255        | 1    | 172.16.0.0/12",
        "0.0.0.0/0                         | 192.168.1.1           | 1    | 0.0.0.0/0",
        "10.1.2.3                          | 10.1.2.3              | 1    | 10.1.2.3",
        "10.1.2.3:50051                    | 10.1.2.3              | 50051| 10.1.2.3:50051",
        "::1                               | [::1]                 | 1    | ::1",
        "[::1]:443                         | ::1                   | 443  | [::1]:443",
        "fd00::/8                          | [fd12:3456::1]        | 1    | fd00::/8",
        "[fd00::1]                         | [FD00:0:0::1]         | 1    | [fd00::1]"
      })
  void noProxyMatches(String entries, String host, int port, String expected) {
    assertThat(NoProxy.parse(List.of(entries.split(","))).match(host, port)).contains(expected);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "example.com                | notexample.com        | 443",
        ".example.com               | example.com           | 443",
        "*.example.com              | example.com           | 443",
        "example.com:443            | hub.example.com       | 50051",
        "hub.example.com            | example.com           | 443",
        "10.0.0.0/8                 | 11.0.0.1              | 443",
        "10.0.0.0/8                 | ten.example.com       | 443",
        "172.16.0.0/12              | 172.32.0.1            | 443",
        "10.1.2.3                   | 10.1.2.4              | 443",
        "10.1.2.3:1                 | 10.1.2.3              | 2",
        "127.0.0.1                  | localhost             | 443",
        "fd00::/8                   | [fe80::1]             | 443",
        "10.0.0.0/33                | 10.0.0.1              | 443",
        "example.com:0              | example.com           | 443",
        "example.com:x              | example.com           | 443",
        "**.example.com             | hub.example.com       | 443",
        "[::1                       | ::1                   | 443"
      })
  void noProxyDoesNotMatch(String entries, String host, int port) {
    assertThat(NoProxy.parse(List.of(entries.split(","))).match(host, port)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"999.1.1.1", "1.2.3", "example.com", "fe80::1%eth0", "::g"})
  void ipLiteralsAreParsedWithoutDns(String text) {
    // None of these is an IP literal Java could parse offline; none may trigger a DNS lookup.
    assertThat(NoProxy.ipLiteral(text)).isEmpty();
  }

  // --- the detector -----------------------------------------------------------------------

  @Test
  void theDetectorTunnelsToTheUnresolvedHubAddressWithBasicCredentials() throws Exception {
    AgentConfig config =
        parse(
            "HTTPS_PROXY",
            "http://bob:s%40cret@127.0.0.1:3128",
            "NO_PROXY",
            "internal.example.com");
    var detector = detector(config).orElseThrow();
    InetSocketAddress hub = InetSocketAddress.createUnresolved("hub.example.com", 443);

    ProxiedSocketAddress proxied = detector.proxyFor(hub);

    assertThat(proxied)
        .isInstanceOfSatisfying(
            HttpConnectProxiedSocketAddress.class,
            p -> {
              assertThat(p.getTargetAddress()).isSameAs(hub);
              assertThat(p.getProxyAddress()).isEqualTo(new InetSocketAddress("127.0.0.1", 3128));
              assertThat(p.getUsername()).isEqualTo("bob");
              assertThat(p.getPassword()).isEqualTo("s@cret");
              assertThat(p.toString()).doesNotContain("s@cret");
            });
    assertThat(detector.proxyFor(InetSocketAddress.createUnresolved("a.internal.example.com", 1)))
        .isNull();
    assertThat(detector.toString()).doesNotContain("cret");
  }

  @Test
  void theDetectorSendsNoCredentialsWithoutUserInfoAndAnEmptyPasswordForAUserOnly()
      throws Exception {
    var anonymous =
        detector(parse("HTTPS_PROXY", "127.0.0.1:3128"))
            .orElseThrow()
            .proxyFor(InetSocketAddress.createUnresolved("hub.example.com", 443));
    assertThat(((HttpConnectProxiedSocketAddress) anonymous).getUsername()).isNull();
    assertThat(((HttpConnectProxiedSocketAddress) anonymous).getPassword()).isNull();

    var userOnly =
        detector(parse("HTTPS_PROXY", "http://bob@127.0.0.1:3128"))
            .orElseThrow()
            .proxyFor(InetSocketAddress.createUnresolved("hub.example.com", 443));
    assertThat(((HttpConnectProxiedSocketAddress) userOnly).getUsername()).isEqualTo("bob");
    assertThat(((HttpConnectProxiedSocketAddress) userOnly).getPassword()).isEmpty();
  }

  @Test
  void aNoProxyMatchOnTheHubStillInstallsTheDetectorSoTheJvmDefaultDoesNotApply() throws Exception {
    var detector =
        detector(parse("HTTPS_PROXY", "http://127.0.0.1:3128", "NO_PROXY", ".example.com"))
            .orElseThrow();
    assertThat(detector.proxyFor(InetSocketAddress.createUnresolved("hub.example.com", 443)))
        .isNull();
  }
}
