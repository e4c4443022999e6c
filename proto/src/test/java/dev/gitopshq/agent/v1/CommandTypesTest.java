package dev.gitopshq.agent.v1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.agent.v1.CommandParams.Checked;
import dev.gitopshq.agent.v1.CommandParams.Problem;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CommandTypesTest {
  @Test
  void everyEnumValueIsDeclaredWithANameACapabilityAndTypedParams() {
    List<CommandType> values =
        Arrays.stream(CommandType.values())
            .filter(t -> t != CommandType.COMMAND_TYPE_UNSPECIFIED)
            .filter(t -> t != CommandType.UNRECOGNIZED)
            .toList();
    assertThat(CommandTypes.specs()).hasSize(values.size());
    for (CommandType t : values) {
      CommandTypeSpec s = CommandTypes.spec(t);
      assertThat(s.getName()).as(t.name()).matches("[a-z][a-z-]*");
      assertThat(CommandTypes.type(s.getName())).contains(t);
      assertThat(Capabilities.isKnown(s.getCapability())).as(s.getName()).isTrue();
      assertThat(s.getSummary()).as(s.getName()).isNotBlank();
      assertThat(s.hasApprovalRequiredByDefault()).as(s.getName()).isTrue();
      for (CommandParamSpec p : s.getParamsList()) {
        assertThat(p.getType())
            .as(p.getName())
            .isNotEqualTo(CommandParamSpec.Type.TYPE_UNSPECIFIED);
        assertThat(p.getLabel()).as(p.getName()).isNotBlank();
        if (p.getType() == CommandParamSpec.Type.STRING) {
          assertThat(p.getMaxLength()).as(p.getName()).isPositive();
        }
        if (!p.getCapabilityWhenSet().isEmpty()) {
          assertThat(Capabilities.isKnown(p.getCapabilityWhenSet())).isTrue();
        }
      }
      assertThat(s.getParamsList().stream().map(CommandParamSpec::getName))
          .containsAll(s.getExactlyOneOfList());
    }
    assertThatThrownBy(() -> CommandTypes.spec(CommandType.COMMAND_TYPE_UNSPECIFIED))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void keepsTheApisOrderAndCapabilities() {
    assertThat(CommandTypes.ALL)
        .containsExactly("sync", "rollback", "restart", "scale", "refresh", "resolve-drift");
    assertThat(CommandTypes.REQUIRED_CAPABILITY)
        .containsEntry("sync", "argocd.write")
        .containsEntry("rollback", "argocd.write")
        .containsEntry("restart", "kubernetes.restart")
        .containsEntry("scale", "kubernetes.scale")
        .containsEntry("refresh", "argocd.write")
        .containsEntry("resolve-drift", "direct.deploy");
    assertThat(CommandTypes.requestable().stream().map(CommandTypeSpec::getName))
        .containsExactly("sync", "rollback", "restart", "scale", "refresh");
    assertThat(CommandTypes.isKnown("deploy")).isFalse();
    assertThat(CommandTypes.isKnown(null)).isFalse();
    assertThat(CommandTypes.capabilityFor("deploy")).isEmpty();
  }

  @Test
  void resolveDriftThroughArgoCdNeedsArgocdWrite() {
    assertThat(CommandTypes.capabilityFor("resolve-drift", Map.of())).contains("direct.deploy");
    assertThat(
            CommandTypes.capabilityFor(
                "resolve-drift", Map.of(CommandTypes.PARAM_APPLICATION, "argocd/web")))
        .contains("argocd.write");
    assertThat(CommandTypes.spec(CommandTypes.RESOLVE_DRIFT).orElseThrow().getParamsList())
        .extracting(CommandParamSpec::getName)
        .containsExactly(
            CommandTypes.PARAM_FINDING,
            CommandTypes.PARAM_APPLICATION,
            CommandTypes.PARAM_FIELD_MANAGER);
  }

  @Test
  void scaleTakesReplicasFromZeroToOneThousand() {
    CommandTypeSpec scale = CommandTypes.spec(CommandType.COMMAND_TYPE_SCALE);
    assertThat(scale.getTargetKindsList()).containsExactly("Deployment");
    assertThat(CommandParams.check(scale, Map.of("replicas", 0)).values())
        .containsExactly(Map.entry("replicas", "0"));
    assertThat(CommandParams.check(scale, Map.of("replicas", 1000)).ok()).isTrue();
    assertThat(CommandParams.check(scale, Map.of("replicas", 1001)).problems())
        .containsExactly(new Problem("params.replicas", "must be a whole number from 0 to 1000"));
    assertThat(CommandParams.check(scale, Map.of("replicas", -1)).ok()).isFalse();
    assertThat(CommandParams.check(scale, Map.of("replicas", "3")).ok()).isFalse();
    assertThat(CommandParams.check(scale, Map.of("replicas", 3_000_000_000L)).ok()).isFalse();
    assertThat(CommandParams.check(scale, Map.of()).problems())
        .containsExactly(new Problem("params.replicas", "is required for scale"));
    assertThat(CommandParams.check(scale, Map.of("replicas", 2, "force", true)).problems())
        .containsExactly(new Problem("params.force", "is not a parameter of this command type"));
  }

  @Test
  void rollbackTakesExactlyOneOfRevisionOrHistoryId() {
    CommandTypeSpec rollback = CommandTypes.spec(CommandType.COMMAND_TYPE_ROLLBACK);
    assertThat(CommandParams.check(rollback, Map.of()).problems())
        .containsExactly(
            new Problem("params", "give exactly one of revision or historyId for rollback"));
    assertThat(CommandParams.check(rollback, Map.of("revision", "abc", "historyId", 3)).problems())
        .extracting(Problem::field)
        .containsExactly("params");
    Checked byHistory = CommandParams.check(rollback, Map.of("historyId", 3));
    assertThat(byHistory.values()).containsExactly(Map.entry("historyId", "3"));
    assertThat(CommandParams.check(rollback, Map.of("historyId", -1)).problems())
        .containsExactly(
            new Problem(
                "params.historyId",
                "must be a whole number from the Application's status.history"));
    assertThat(CommandParams.check(rollback, Map.of("revision", "x".repeat(256))).problems())
        .containsExactly(
            new Problem("params.revision", "must be a Git revision of at most 255 characters"));
    assertThat(CommandParams.check(rollback, Map.of("revision", "x".repeat(255))).ok()).isTrue();
    assertThat(CommandParams.check(rollback, Map.of("revision", "  ")).ok()).isFalse();
  }

  @Test
  void restartAndRefreshTakeNoParams() {
    for (CommandType t :
        List.of(CommandType.COMMAND_TYPE_RESTART, CommandType.COMMAND_TYPE_REFRESH)) {
      CommandTypeSpec s = CommandTypes.spec(t);
      assertThat(CommandParams.check(s, null).ok()).isTrue();
      assertThat(CommandParams.check(s, Map.of("revision", "main")).problems())
          .containsExactly(
              new Problem("params.revision", "is not a parameter of this command type"));
    }
    assertThat(CommandTypes.spec(CommandType.COMMAND_TYPE_SYNC).getTargetKindsList())
        .containsExactly("Application");
  }
}
