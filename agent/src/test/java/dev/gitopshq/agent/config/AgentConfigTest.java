package dev.gitopshq.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AgentConfigTest {

  private static final String TOKEN = "ghqa_reg_" + "ab".repeat(32);

  @TempDir Path temp;

  private AgentConfig parse(Map<String, String> env) {
    // A service-account file that does not exist, so the host's own never leaks in.
    return AgentConfig.fromEnv(env, temp.resolve("no-such-namespace-file"));
  }

  private static Map<String, String> minimal(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("GITOPSHQ_HUB_ADDRESS", "hub.example.com:50051");
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  @Test
  void readsTheClusterLabelsTheChartSetsAsJson() {
    assertThat(parse(minimal()).clusterLabels()).isEmpty();
    assertThat(
            parse(minimal("GITOPSHQ_CLUSTER_LABELS", "{\"tier\":\"production\",\"team\":\"shop\"}"))
                .clusterLabels())
        .containsOnly(Map.entry("tier", "production"), Map.entry("team", "shop"));
    assertThatThrownBy(() -> parse(minimal("GITOPSHQ_CLUSTER_LABELS", "tier=production")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("GITOPSHQ_CLUSTER_LABELS")
        .hasMessageContaining("JSON object");
    assertThatThrownBy(() -> parse(minimal("GITOPSHQ_CLUSTER_LABELS", "{\"replicas\":3}")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("label replicas must have a string value");
  }

  @Test
  void appliesTheDocumentedDefaults() {
    AgentConfig config = parse(minimal());

    assertThat(config.hubAddress()).isEqualTo("hub.example.com:50051");
    assertThat(config.registrationToken()).isEmpty();
    assertThat(config.identityStoreMode()).isEqualTo(IdentityStoreMode.FILE);
    assertThat(config.agentTokenPath()).isEqualTo(Path.of("/tmp/gitopshq-agent-token"));
    assertThat(config.identitySecretName()).isEqualTo("gitopshq-agent-identity");
    assertThat(config.identitySecretNamespace()).isEqualTo("gitopshq-system");
    assertThat(config.clusterName()).isEqualTo("default");
    assertThat(config.displayName()).isEmpty();
    assertThat(config.provider()).isEmpty();
    assertThat(config.region()).isEmpty();
    assertThat(config.environment()).isEmpty();
    assertThat(config.capabilities()).containsExactly("observe");
    assertThat(config.statusIntervalSeconds()).isEmpty();
    assertThat(config.hubInsecure()).isFalse();
    assertThat(config.hubPlaintext()).isFalse();
    assertThat(config.hubCaFile()).isEmpty();
    assertThat(config.reconnectMaxSeconds()).isEqualTo(60);
  }

  @Test
  void readsEveryVariable() throws IOException {
    Path ca = Files.writeString(temp.resolve("ca.pem"), "not parsed here");
    AgentConfig config =
        parse(
            minimal(
                "GITOPSHQ_REGISTRATION_TOKEN", " " + TOKEN + "\n",
                "GITOPSHQ_IDENTITY_STORE_MODE", "Secret",
                "GITOPSHQ_AGENT_TOKEN_PATH", "/var/lib/gitopshq/identity/agent.json",
                "GITOPSHQ_IDENTITY_SECRET_NAME", "my-identity",
                "GITOPSHQ_IDENTITY_SECRET_NAMESPACE", "agents",
                "GITOPSHQ_CLUSTER_NAME", "prod-eu-1",
                "GITOPSHQ_DISPLAY_NAME", "Production EU",
                "GITOPSHQ_PROVIDER", "eks",
                "GITOPSHQ_REGION", "eu-west-1",
                "GITOPSHQ_ENVIRONMENT", "production",
                "GITOPSHQ_CAPABILITIES", "observe, argocd.read,argocd.write,,observe",
                "GITOPSHQ_STATUS_INTERVAL_SECONDS", "15",
                "GITOPSHQ_HUB_CA_FILE", ca.toString(),
                "GITOPSHQ_RECONNECT_MAX_SECONDS", "120"));

    assertThat(config.registrationToken()).contains(TOKEN);
    assertThat(config.identityStoreMode()).isEqualTo(IdentityStoreMode.SECRET);
    assertThat(config.agentTokenPath()).isEqualTo(Path.of("/var/lib/gitopshq/identity/agent.json"));
    assertThat(config.identitySecretName()).isEqualTo("my-identity");
    assertThat(config.identitySecretNamespace()).isEqualTo("agents");
    assertThat(config.clusterName()).isEqualTo("prod-eu-1");
    assertThat(config.displayName()).isEqualTo("Production EU");
    assertThat(config.provider()).isEqualTo("eks");
    assertThat(config.region()).isEqualTo("eu-west-1");
    assertThat(config.environment()).isEqualTo("production");
    assertThat(config.capabilities()).containsExactly("observe", "argocd.read", "argocd.write");
    assertThat(config.statusIntervalSeconds()).hasValue(15);
    assertThat(config.hubCaFile()).contains(ca);
    assertThat(config.reconnectMaxSeconds()).isEqualTo(120);
  }

  @Test
  void acceptsEverySeedCapability() {
    String all =
        String.join(
            ",",
            List.of(
                "observe",
                "diagnostics.read",
                "argocd.read",
                "argocd.write",
                "direct.deploy",
                "kubernetes.restart",
                "kubernetes.scale",
                "credential.sync",
                "token.rotate"));

    assertThat(parse(minimal("GITOPSHQ_CAPABILITIES", all)).capabilities()).hasSize(9);
  }

  @Test
  void takesTheSecretNamespaceFromThePodThenTheServiceAccount() throws IOException {
    assertThat(parse(minimal("POD_NAMESPACE", "from-pod")).identitySecretNamespace())
        .isEqualTo("from-pod");

    Path namespaceFile = Files.writeString(temp.resolve("namespace"), "from-sa\n");
    assertThat(AgentConfig.fromEnv(minimal(), namespaceFile).identitySecretNamespace())
        .isEqualTo("from-sa");
    assertThat(
            AgentConfig.fromEnv(minimal("POD_NAMESPACE", "from-pod"), namespaceFile)
                .identitySecretNamespace())
        .isEqualTo("from-pod");
  }

  @Test
  void treatsBlankValuesAsUnset() {
    AgentConfig config =
        parse(
            minimal(
                "GITOPSHQ_REGISTRATION_TOKEN", "  ",
                "GITOPSHQ_CAPABILITIES", "",
                "GITOPSHQ_STATUS_INTERVAL_SECONDS", ""));

    assertThat(config.registrationToken()).isEmpty();
    assertThat(config.capabilities()).containsExactly("observe");
    assertThat(config.statusIntervalSeconds()).isEmpty();
  }

  @Test
  void requiresTheHubAddress() {
    assertThatThrownBy(() -> parse(Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("GITOPSHQ_HUB_ADDRESS is required");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "GITOPSHQ_HUB_ADDRESS|hub.example.com|must be host:port",
        "GITOPSHQ_HUB_ADDRESS|https://hub.example.com:443|must be host:port",
        "GITOPSHQ_HUB_ADDRESS|hub.example.com:0|must be host:port",
        "GITOPSHQ_HUB_ADDRESS|hub.example.com:70000|must be host:port",
        "GITOPSHQ_IDENTITY_STORE_MODE|pvc|must be 'file' or 'secret' (was 'pvc')",
        "GITOPSHQ_IDENTITY_SECRET_NAME|Not_Valid|must be a valid Secret name",
        "GITOPSHQ_IDENTITY_SECRET_NAMESPACE|UPPER|must be a valid namespace name",
        "GITOPSHQ_CLUSTER_NAME|Prod_EU|must be an RFC 1123 label",
        "GITOPSHQ_CLUSTER_NAME|-prod|must be an RFC 1123 label",
        "GITOPSHQ_CAPABILITIES|observe,argocd.delete|names an unknown capability 'argocd.delete'",
        "GITOPSHQ_CAPABILITIES|,|must name at least one capability",
        "GITOPSHQ_STATUS_INTERVAL_SECONDS|0|must be a whole number of seconds from 1 to 3600",
        "GITOPSHQ_STATUS_INTERVAL_SECONDS|30s|must be a whole number of seconds from 1 to 3600",
        "GITOPSHQ_RECONNECT_MAX_SECONDS|-5|must be a whole number of seconds from 1 to 3600",
        "GITOPSHQ_RECONNECT_MAX_SECONDS|99999|must be a whole number of seconds from 1 to 3600",
        "GITOPSHQ_HUB_INSECURE|maybe|must be true or false (was 'maybe')",
        "GITOPSHQ_HUB_PLAINTEXT|on|must be true or false (was 'on')",
        "GITOPSHQ_HUB_CA_FILE|/no/such/ca.pem|names /no/such/ca.pem, which is not a readable file",
      })
  void rejectsAnInvalidValueNamingTheVariable(String variable, String value, String problem) {
    assertThatThrownBy(() -> parse(minimal(variable, value)))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(variable + " ")
        .hasMessageContaining(problem)
        .satisfies(e -> assertThat(((ConfigException) e).variable()).isEqualTo(variable));
  }

  @Test
  void listsTheValidCapabilitiesWhenOneIsUnknown() {
    assertThatThrownBy(() -> parse(minimal("GITOPSHQ_CAPABILITIES", "observe,telepathy")))
        .hasMessageContaining("'telepathy'")
        .hasMessageContaining("observe, diagnostics.read, argocd.read");
  }

  @Test
  void rejectsContradictoryTransportSettings() throws IOException {
    assertThatThrownBy(
            () -> parse(minimal("GITOPSHQ_HUB_INSECURE", "true", "GITOPSHQ_HUB_PLAINTEXT", "true")))
        .hasMessageStartingWith("GITOPSHQ_HUB_INSECURE and GITOPSHQ_HUB_PLAINTEXT");
    Path ca = Files.writeString(temp.resolve("ca.pem"), "x");
    assertThatThrownBy(
            () ->
                parse(
                    minimal(
                        "GITOPSHQ_HUB_CA_FILE", ca.toString(), "GITOPSHQ_HUB_PLAINTEXT", "true")))
        .hasMessageStartingWith("GITOPSHQ_HUB_CA_FILE is set but GITOPSHQ_HUB_PLAINTEXT=true");
  }

  @Test
  void neverShowsTheRegistrationToken() {
    AgentConfig config = parse(minimal("GITOPSHQ_REGISTRATION_TOKEN", TOKEN));

    assertThat(config.toString()).doesNotContain(TOKEN).contains("registrationToken=<set>");
    assertThat(parse(minimal()).toString()).contains("registrationToken=<not set>");
  }
}
