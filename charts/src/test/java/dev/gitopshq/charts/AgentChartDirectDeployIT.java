package dev.gitopshq.charts;

import static dev.gitopshq.charts.AgentChartRbacTest.only;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.agent.config.DirectDeployConfig;
import dev.gitopshq.agent.deploy.DirectDeployer;
import dev.gitopshq.agent.v1.ApplyFile;
import dev.gitopshq.agent.v1.ApplyRelease;
import dev.gitopshq.agent.v1.ApplyResult;
import dev.gitopshq.agent.v1.ObjectResult;
import dev.gitopshq.agent.v1.TenantFence;
import dev.gitopshq.testkube.RealKube;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Direct deploy under the chart's RBAC profile, on a real API server: the agent's ServiceAccount
 * (readwrite with directDeploy alone) reads and applies the kinds the ClusterRole grants; a kind it
 * does not grant (a Role) is refused with the API server's own "forbidden" before anything is
 * applied, and so is an object that exists without GitOpsHQ's labels, which stays as it was.
 */
@Tag("e2e")
class AgentChartDirectDeployIT {
  static final RealKube KUBE = RealKube.shared();
  static final String NS = "direct-rbac-apps";
  static final String RELEASE = "rbac-direct";

  @BeforeAll
  static void namespace() {
    try (KubernetesClient admin = KUBE.adminClient()) {
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
          .serverSideApply();
    }
  }

  static ApplyFile file(String path, String yaml) {
    return ApplyFile.newBuilder().setPath(path).setContent(yaml).build();
  }

  static ApplyResult apply(ApplyRelease release) {
    try (KubernetesClient agent =
        AgentChartRbacIT.install(RELEASE, only("readwrite", "directDeploy"))) {
      return new DirectDeployer(
              new DirectDeployConfig("gitopshq-agent", NS), () -> agent, Clock.systemUTC())
          .apply(release);
    }
  }

  static ApplyRelease.Builder release(String id) {
    return ApplyRelease.newBuilder()
        .setApplyId(id)
        .setProject("shop")
        .setEnvironment("dev")
        .setHealthTimeoutSeconds(0);
  }

  static Map<String, ObjectResult> byName(ApplyResult result) {
    return result.getObjectsList().stream()
        .filter(o -> !o.getObject().getName().isEmpty())
        .collect(Collectors.toMap(o -> o.getObject().getName(), o -> o));
  }

  @Test
  void theProfileDecidesWhatADirectApplyMayCreate() {
    ApplyFile config =
        file(
            "acme/web/configmap-web.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: b\n");
    // A fence that lets the project deliver RBAC: the chart's RBAC is what stops the Role.
    ApplyResult refused =
        apply(
            release("rbac-direct-1")
                .setFence(TenantFence.getDefaultInstance())
                .addFiles(config)
                .addFiles(
                    file(
                        "acme/web/role-web.yaml",
                        "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n"
                            + "  name: web-role\nrules: []\n"))
                .build());

    assertThat(refused.getOutcome()).isEqualTo(ApplyResult.Outcome.FAILED);
    ObjectResult role = byName(refused).get("web-role");
    assertThat(role.getAction()).isEqualTo("refused");
    assertThat(role.getMessage())
        .startsWith("Role " + NS + "/web-role: cannot tell whether it exists")
        .contains("forbidden")
        .contains("system:serviceaccount:" + RELEASE + ":")
        .contains("roles");
    try (KubernetesClient admin = KUBE.adminClient()) {
      // Nothing was applied: not the Role, and not the ConfigMap the chart allows either.
      assertThat(admin.rbac().roles().inNamespace(NS).withName("web-role").get()).isNull();
      assertThat(admin.configMaps().inNamespace(NS).withName("web").get()).isNull();
    }

    ApplyResult applied = apply(release("rbac-direct-2").addFiles(config).build());

    assertThat(applied.getOutcome()).isEqualTo(ApplyResult.Outcome.SUCCEEDED);
    assertThat(byName(applied).get("web").getAction()).isEqualTo("applied");
    try (KubernetesClient admin = KUBE.adminClient()) {
      assertThat(admin.configMaps().inNamespace(NS).withName("web").get().getData())
          .containsEntry("a", "b");
    }
  }

  @Test
  void anObjectGitOpsHqDoesNotManageSurvivesADirectApplyUnchanged() {
    try (KubernetesClient admin = KUBE.adminClient()) {
      admin
          .configMaps()
          .inNamespace(NS)
          .resource(
              new ConfigMapBuilder()
                  .withNewMetadata()
                  .withName("legacy")
                  .addToLabels("app", "legacy")
                  .endMetadata()
                  .addToData("owner", "platform-team")
                  .build())
          .serverSideApply();
    }

    ApplyResult result =
        apply(
            release("rbac-direct-3")
                .addFiles(
                    file(
                        "acme/web/configmap-legacy.yaml",
                        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: legacy\n"
                            + "data:\n  owner: shop\n"))
                .addFiles(
                    file(
                        "acme/web/configmap-fresh.yaml",
                        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fresh\n"))
                .build());

    assertThat(result.getOutcome()).isEqualTo(ApplyResult.Outcome.FAILED);
    ObjectResult legacy = byName(result).get("legacy");
    assertThat(legacy.getAction()).isEqualTo("refused");
    assertThat(legacy.getMessage())
        .startsWith(
            "ConfigMap "
                + NS
                + "/legacy exists and is not managed by GitOpsHQ for project shop; delete it or"
                + " label it to hand it over (");
    try (KubernetesClient admin = KUBE.adminClient()) {
      ConfigMap live = admin.configMaps().inNamespace(NS).withName("legacy").get();
      assertThat(live.getData()).containsExactlyEntriesOf(Map.of("owner", "platform-team"));
      assertThat(live.getMetadata().getLabels()).containsExactlyEntriesOf(Map.of("app", "legacy"));
      assertThat(live.getMetadata().getManagedFields())
          .extracting(ManagedFieldsEntry::getManager)
          .doesNotContain("gitopshq-agent");
      assertThat(admin.configMaps().inNamespace(NS).withName("fresh").get()).isNull();
    }
  }
}
