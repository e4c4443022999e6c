package dev.gitopshq.charts;

import static dev.gitopshq.charts.AgentChartRbacTest.only;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.agent.config.DirectDeployConfig;
import dev.gitopshq.agent.deploy.DirectDeployer;
import dev.gitopshq.agent.v1.ApplyFile;
import dev.gitopshq.agent.v1.ApplyRelease;
import dev.gitopshq.agent.v1.ApplyResult;
import dev.gitopshq.agent.v1.ObjectResult;
import dev.gitopshq.testkube.RealKube;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Direct deploy under the chart's RBAC profile, on a real API server: the agent's ServiceAccount
 * (readwrite, directDeploy) applies the kinds the ClusterRole grants, and a kind it does not grant
 * (a Role) fails with the API server's own "forbidden" message, object by object.
 */
class AgentChartDirectDeployIT {
  static final RealKube KUBE = RealKube.shared();
  static final String NS = "direct-rbac-apps";

  @Test
  void theProfileDecidesWhatADirectApplyMayCreate() {
    try (KubernetesClient admin = KUBE.adminClient()) {
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
          .serverSideApply();
    }
    try (KubernetesClient agent =
        AgentChartRbacIT.install(
            "rbac-direct", only("readwrite", "observe", "argocdRead", "directDeploy"))) {
      DirectDeployer deployer =
          new DirectDeployer(
              true,
              new DirectDeployConfig("gitopshq-agent", NS),
              () -> agent,
              Clock.systemUTC(),
              r -> {});
      ApplyResult result =
          deployer.run(
              ApplyRelease.newBuilder()
                  .setApplyId("rbac-direct-1")
                  .setProject("shop")
                  .setEnvironment("dev")
                  .setHealthTimeoutSeconds(0)
                  .addFiles(
                      ApplyFile.newBuilder()
                          .setPath("acme/web/configmap-web.yaml")
                          .setContent(
                              "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: b\n"))
                  .addFiles(
                      ApplyFile.newBuilder()
                          .setPath("acme/web/role-web.yaml")
                          .setContent(
                              "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n"
                                  + "  name: web\nrules: []\n"))
                  .build());
      deployer.close();

      Map<String, ObjectResult> byKind =
          result.getObjectsList().stream()
              .collect(Collectors.toMap(o -> o.getObject().getKind(), o -> o));
      assertThat(result.getOutcome()).isEqualTo(ApplyResult.Outcome.FAILED);
      assertThat(byKind.get("ConfigMap").getAction()).isEqualTo("applied");
      assertThat(byKind.get("Role").getAction()).isEqualTo("failed");
      assertThat(byKind.get("Role").getMessage())
          .contains("forbidden")
          .contains("system:serviceaccount:rbac-direct:")
          .contains("roles");
      try (KubernetesClient admin = KUBE.adminClient()) {
        assertThat(admin.configMaps().inNamespace(NS).withName("web").get().getData())
            .containsEntry("a", "b");
        assertThat(admin.rbac().roles().inNamespace(NS).withName("web").get()).isNull();
      }
    }
  }
}
