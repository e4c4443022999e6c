package dev.gitopshq.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.CommandTypes;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class CapabilityTest {
  @Test
  void theAgentKnowsExactlyTheProtocolsCapabilitiesInItsOrder() {
    assertThat(Arrays.stream(Capability.values()).map(Capability::seedName))
        .containsExactlyElementsOf(Capabilities.ALL);
  }

  @Test
  void everyCommandTypeNeedsACapabilityTheAgentKnows() {
    assertThat(CommandTypes.ALL)
        .containsExactly("sync", "rollback", "restart", "scale", "refresh", "resolve-drift");
    CommandTypes.REQUIRED_CAPABILITY
        .values()
        .forEach(c -> assertThat(Capability.fromSeedName(c)).as(c).isPresent());
    // resolve-drift through Argo CD needs argocd.write instead of direct.deploy.
    assertThat(CommandTypes.capabilityFor("resolve-drift", java.util.Map.of()))
        .contains(Capabilities.DIRECT_DEPLOY);
    assertThat(
            CommandTypes.capabilityFor(
                "resolve-drift", java.util.Map.of("application", "argocd/shop")))
        .contains(Capabilities.ARGOCD_WRITE);
    assertThat(CommandTypes.capabilityFor("scale", java.util.Map.of("application", "x")))
        .contains(Capabilities.KUBERNETES_SCALE);
  }
}
