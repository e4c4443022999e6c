package dev.gitopshq.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class DirectDeployConfigTest {
  @Test
  void defaultsToTheDocumentedFieldManagerAndNoNamespace() {
    DirectDeployConfig c = DirectDeployConfig.fromEnv(Map.of());
    assertThat(c.fieldManager()).isEqualTo("gitopshq-agent");
    assertThat(c.defaultNamespace()).isEmpty();
  }

  @Test
  void readsTheChartsValues() {
    DirectDeployConfig c =
        DirectDeployConfig.fromEnv(
            Map.of(
                DirectDeployConfig.FIELD_MANAGER, " platform-ops ",
                DirectDeployConfig.DEFAULT_NAMESPACE, "apps"));
    assertThat(c).isEqualTo(new DirectDeployConfig("platform-ops", "apps"));
  }

  @Test
  void refusesANamespaceOrFieldManagerKubernetesWouldRefuseNamingTheVariable() {
    assertThatThrownBy(
            () ->
                DirectDeployConfig.fromEnv(Map.of(DirectDeployConfig.DEFAULT_NAMESPACE, "Apps_1")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(DirectDeployConfig.DEFAULT_NAMESPACE)
        .hasMessageContaining("RFC 1123");
    assertThatThrownBy(
            () -> DirectDeployConfig.fromEnv(Map.of(DirectDeployConfig.FIELD_MANAGER, "ops team")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(DirectDeployConfig.FIELD_MANAGER);
    assertThatThrownBy(
            () ->
                DirectDeployConfig.fromEnv(
                    Map.of(DirectDeployConfig.FIELD_MANAGER, "m".repeat(129))))
        .isInstanceOf(ConfigException.class);
  }
}
