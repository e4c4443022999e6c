package dev.gitopshq.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** credentialSync.mode and credentialSync.targets as the chart renders them. */
class CredentialSyncConfigTest {
  @TempDir Path temp;

  private AgentConfig parse(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("GITOPSHQ_HUB_ADDRESS", "hub.example.com:50051");
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return AgentConfig.fromEnv(env, temp.resolve("no-such-namespace-file"));
  }

  @Test
  void mirroredIsTheDefaultAndTheTargetsAreParsed() {
    assertThat(parse().credentialSyncTargets()).isEmpty();
    assertThat(parse().credentialTargetAllowed("anything")).isTrue();
    AgentConfig c =
        parse(
            "GITOPSHQ_CREDENTIAL_SYNC_MODE", "mirrored",
            "GITOPSHQ_CREDENTIAL_SYNC_TARGETS", "apps, payments,apps");
    assertThat(c.credentialSyncTargets()).containsExactly("apps", "payments");
    assertThat(c.credentialTargetAllowed("payments")).isTrue();
    assertThat(c.credentialTargetAllowed("kube-system")).isFalse();
  }

  @Test
  void refusesAnyOtherMode() {
    assertThatThrownBy(() -> parse("GITOPSHQ_CREDENTIAL_SYNC_MODE", "per-namespace"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("GITOPSHQ_CREDENTIAL_SYNC_MODE must be mirrored")
        .hasMessageContaining("was 'per-namespace'");
  }

  @Test
  void refusesATargetThatIsNotANamespaceName() {
    assertThatThrownBy(() -> parse("GITOPSHQ_CREDENTIAL_SYNC_TARGETS", "apps,Not_A_Namespace"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("GITOPSHQ_CREDENTIAL_SYNC_TARGETS names 'Not_A_Namespace'");
  }
}
