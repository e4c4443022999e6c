package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SelectorCliTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void kubectlSyntaxBecomesMatchLabelsAndMatchExpressions() {
    assertThat(
            SelectorSyntax.parse(
                "tier=production, region in (eu-1, eu-2),env==prod,team!=ops,legacy notin (yes),"
                    + "gpu,!deprecated"))
        .isEqualTo(
            Map.of(
                "matchLabels",
                Map.of("tier", "production", "env", "prod"),
                "matchExpressions",
                List.of(
                    Map.of("key", "region", "operator", "In", "values", List.of("eu-1", "eu-2")),
                    Map.of("key", "team", "operator", "NotIn", "values", List.of("ops")),
                    Map.of("key", "legacy", "operator", "NotIn", "values", List.of("yes")),
                    Map.of("key", "gpu", "operator", "Exists"),
                    Map.of("key", "deprecated", "operator", "DoesNotExist"))));
    assertThat(SelectorSyntax.parse("")).as("matches every cluster").isEmpty();
  }

  @Test
  void aMalformedSelectorIsAUsageError() {
    for (String bad : List.of("a,,b", "region in (eu-1", "region in ()", "=x")) {
      assertThatThrownBy(() -> SelectorSyntax.parse(bad))
          .as(bad)
          .isInstanceOfSatisfying(
              CliException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCode.USAGE));
    }
  }

  @Test
  void theHubsSelectorIsShownInKubectlSyntax() throws Exception {
    JsonNode s =
        JSON.readTree(
            "{\"matchLabels\":{\"tier\":\"production\"},\"matchExpressions\":[{\"key\":\"region\","
                + "\"operator\":\"In\",\"values\":[\"eu-1\",\"eu-2\"]},{\"key\":\"legacy\","
                + "\"operator\":\"DoesNotExist\"}]}");
    assertThat(SelectorSyntax.format(s)).isEqualTo("tier=production,region in (eu-1,eu-2),!legacy");
    assertThat(SelectorSyntax.format(JSON.readTree("{}"))).isEqualTo("(every cluster)");
    assertThat(SelectorSyntax.format(JSON.readTree("null"))).isEmpty();
  }

  @Test
  void settingAnEnvironmentKeepsItsSelectorAndDoesNotNameTheClustersOnlyTheSelectorBinds()
      throws Exception {
    JsonNode current =
        JSON.readTree(
            "{\"name\":\"production\",\"namespacePattern\":\"p\",\"clusters\":["
                + "{\"cluster\":\"eu-1\",\"overrides\":{},\"deliveryMode\":\"argocd\",\"boundBy\":[\"name\"]},"
                + "{\"cluster\":\"eu-2\",\"overrides\":{},\"deliveryMode\":\"argocd\",\"boundBy\":[\"selector\"]},"
                + "{\"cluster\":\"eu-3\",\"overrides\":{},\"deliveryMode\":\"argocd\",\"boundBy\":[\"name\",\"selector\"]}],"
                + "\"clusterSelector\":{\"matchLabels\":{\"tier\":\"production\"}},"
                + "\"selectorDeliveryMode\":\"flux\"}");
    Map<String, Object> kept =
        ProjectsCommand.environmentBody(current, null, null, null, null, null, false);
    assertThat(kept.get("clusters").toString()).contains("eu-1", "eu-3").doesNotContain("eu-2");
    assertThat(kept)
        .containsEntry("clusterSelector", Map.of("matchLabels", Map.of("tier", "production")));

    Map<String, Object> changed =
        ProjectsCommand.environmentBody(current, null, null, null, null, "tier in (a,b)", false);
    assertThat(changed.get("clusterSelector"))
        .isEqualTo(
            Map.of(
                "matchExpressions",
                List.of(Map.of("key", "tier", "operator", "In", "values", List.of("a", "b")))));

    assertThat(ProjectsCommand.environmentBody(current, null, null, null, null, null, true))
        .doesNotContainKey("clusterSelector");
  }
}
