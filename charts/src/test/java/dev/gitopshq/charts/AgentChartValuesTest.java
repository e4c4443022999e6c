package dev.gitopshq.charts;

import static dev.gitopshq.charts.Chart.values;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The agent chart's values: the documented names and defaults, the schema, the README, lint. */
@Tag("integration") // runs the helm binary
class AgentChartValuesTest {
  static final Chart CHART = Chart.agent();
  static final ObjectMapper JSON = new ObjectMapper();

  /** Every value of the product documentation's tables with its documented default. */
  static final Map<String, Object> DOCUMENTED_DEFAULTS = documentedDefaults();

  static Map<String, Object> documentedDefaults() {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("registrationToken", "");
    d.put("hub.address", "gitopshq.example.internal:50051");
    d.put("hub.statusIntervalSeconds", 30);
    d.put("agent.clusterName", "default");
    d.put("agent.displayName", "");
    d.put("agent.provider", "");
    d.put("agent.region", "");
    d.put("agent.environment", "");
    d.put("agent.tokenPath", "/var/lib/gitopshq/identity/agent.json");
    d.put("persistence.enabled", true);
    d.put("persistence.type", "secret");
    d.put("persistence.secretName", "");
    d.put("persistence.size", "128Mi");
    d.put("capabilities.observe", true);
    d.put("capabilities.diagnosticsRead", true);
    d.put("capabilities.argocdRead", true);
    d.put("capabilities.argocdWrite", false);
    d.put("capabilities.directDeploy", false);
    d.put("capabilities.kubernetesRestart", false);
    d.put("capabilities.kubernetesScale", false);
    d.put("capabilities.credentialSync", false);
    d.put("capabilities.tokenRotate", true);
    d.put("rbac.create", true);
    d.put("rbac.profile", "readonly");
    d.put("serviceAccount.create", true);
    d.put("tls.insecure", false);
    d.put("proxy.httpProxy", "");
    d.put("proxy.httpsProxy", "");
    d.put("proxy.noProxy", "");
    d.put("argocd.server", "");
    d.put("argocd.token", "");
    d.put("argocd.insecure", false);
    d.put("diagnostics.allowedNamespaces", List.of());
    d.put("credentialSync.mode", "mirrored");
    d.put("credentialSync.targets", List.of());
    d.put("directDeploy.defaultNamespace", "");
    d.put("directDeploy.fieldManager", "gitopshq-agent");
    return d;
  }

  @Test
  void valuesYamlHasEveryDocumentedValueWithItsDefault() {
    JsonNode values = CHART.defaultValues();

    DOCUMENTED_DEFAULTS.forEach(
        (key, expected) -> {
          JsonNode node = values.at("/" + key.replace('.', '/'));
          assertThat(node.isMissingNode()).as("%s is missing from values.yaml", key).isFalse();
          assertThat(JSON.convertValue(node, Object.class)).as(key).isEqualTo(expected);
        });
  }

  @Test
  void theReadmeDocumentsEveryValueAndNoOther() throws IOException {
    assertReadmeDocumentsEveryValue(CHART);
  }

  /** Every README row names a value, and every value is covered by a README row. */
  static void assertReadmeDocumentsEveryValue(Chart chart) throws IOException {
    Set<String> documented = documentedValues(chart);
    JsonNode defaults = chart.defaultValues();
    Set<String> leaves = new TreeSet<>();
    leaves(defaults, "", leaves);

    assertThat(documented)
        .as("README rows that are not values")
        .allSatisfy(
            key ->
                assertThat(defaults.at("/" + key.replace('.', '/')).isMissingNode())
                    .as(key)
                    .isFalse());
    assertThat(leaves)
        .as("values missing from the README")
        .allSatisfy(
            leaf ->
                assertThat(documented)
                    .as(leaf)
                    .anySatisfy(
                        key ->
                            assertThat(leaf.equals(key) || leaf.startsWith(key + ".")).isTrue()));
  }

  /** The first column of the tables in the README's "## Values" section. */
  static Set<String> documentedValues(Chart chart) throws IOException {
    String readme = Files.readString(chart.dir().resolve("README.md"));
    int start = readme.indexOf("\n## Values");
    assertThat(start).as("README has a '## Values' section").isNotNegative();
    int end = readme.indexOf("\n## ", start + 1);
    String section = readme.substring(start, end < 0 ? readme.length() : end);
    Set<String> documented = new TreeSet<>();
    Matcher m = Pattern.compile("(?m)^\\| `([A-Za-z0-9_.]+)` \\|").matcher(section);
    while (m.find()) {
      documented.add(m.group(1));
    }
    return documented;
  }

  /** Every value, or map of free-form values, that values.yaml defines, as dotted keys. */
  static void leaves(JsonNode node, String prefix, Set<String> out) {
    if (node.isObject() && !node.isEmpty()) {
      node.properties()
          .forEach(
              e ->
                  leaves(
                      e.getValue(),
                      prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(),
                      out));
    } else {
      out.add(prefix);
    }
  }

  @Test
  void theSchemaRejectsAnUnknownRbacProfileNamingTheChoices() {
    String error = CHART.renderError(values("rbac.profile", "admin"));

    assertThat(error)
        .contains("values don't meet the specifications of the schema")
        .contains("/rbac/profile")
        .contains("'readonly', 'readwrite'");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "persistence.type      | hostpath       | /persistence/type",
        "credentialSync.mode   | copied         | /credentialSync/mode",
        "registrationToken     | ghqa_reg_short | /registrationToken",
        "agent.clusterName     | Prod_EU        | /agent/clusterName",
        "agent.provider        | mainframe      | /agent/provider",
        "agent.environment     | Prod EU        | /agent/environment",
        "hub.address           | hub.example.com | /hub/address",
        "persistence.secretName | Agent_Identity | /persistence/secretName",
      })
  void theSchemaRejectsInvalidStrings(String key, String value, String pointer) {
    assertThat(CHART.renderError(values(key, value))).contains(pointer);
  }

  @Test
  void theSchemaRejectsWrongTypesAndTypos() {
    assertThat(CHART.renderError(values("capabilities.observe", "yes")))
        .contains("/capabilities/observe");
    assertThat(CHART.renderError(values("hub.statusIntervalSeconds", 0)))
        .contains("/hub/statusIntervalSeconds");
    assertThat(CHART.renderError(values("hub.statusIntervalSeconds", "30")))
        .contains("/hub/statusIntervalSeconds");
    assertThat(CHART.renderError(values("capabilites.observe", true))).contains("capabilites");
    assertThat(CHART.renderError(values("capabilities.kubernetesRollback", true)))
        .contains("kubernetesRollback");
  }

  @Test
  void theSchemaAcceptsWhatTheHubsInstallCommandSets() {
    // Every value the hub sets is a string (--set-string), including a display name with a comma.
    Rendered r =
        CHART.render(
            values(
                "registrationToken", "ghqa_reg_" + "ab".repeat(32),
                "hub.address", "[2001:db8::1]:50051",
                "agent.clusterName", "0123",
                "agent.displayName", "Production, EU \"west\"",
                "agent.provider", "on-prem",
                "agent.region", "eu-west-1",
                "agent.environment", "production"));

    assertThat(r.resolvedEnv())
        .containsEntry("GITOPSHQ_CLUSTER_NAME", "0123")
        .containsEntry("GITOPSHQ_HUB_ADDRESS", "[2001:db8::1]:50051")
        .containsEntry("GITOPSHQ_DISPLAY_NAME", "Production, EU \"west\"");
  }

  @Test
  void theNotesWarnAboutRiskyChoicesOnly() {
    String defaults = CHART.notes(values("registrationToken", "ghqa_reg_" + "ab".repeat(32)));
    assertThat(defaults)
        .contains(
            "capabilities: observe,diagnostics.read,argocd.read,token.rotate",
            "rbac:         readonly",
            "identity:     Secret gitopshq-agent-identity")
        .doesNotContain("WARNING", "No registration token");

    String risky =
        CHART.notes(
            values(
                "persistence.enabled",
                false,
                "capabilities.kubernetesScale",
                true,
                "tls.insecure",
                true));
    assertThat(risky)
        .contains(
            "WARNING: persistence.enabled=false",
            "WARNING: capabilities.kubernetesScale ignored: write capabilities need rbac.profile=readwrite",
            "WARNING: tls.insecure=true",
            "No registration token is set");

    assertThat(Chart.hub().notes(values()))
        .contains(
            "agent gRPC:  gitopshq.example.internal:50051 (PLAINTEXT)",
            "WARNING: agent.tls.existingSecret is empty");
  }

  @Test
  void bothChartsPassStrictLint() {
    for (Chart chart : List.of(Chart.agent(), Chart.hub())) {
      Chart.Lint lint = chart.lint();
      assertThat(lint.failed())
          .as("helm lint --strict %s: %s", chart.dir(), lint.messages())
          .isFalse();
      assertThat(lint.messages())
          .as(chart.dir().toString())
          .noneMatch(msg -> msg.contains("[ERROR]") || msg.contains("[WARNING]"));
    }
  }
}
