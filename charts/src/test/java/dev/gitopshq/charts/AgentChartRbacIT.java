package dev.gitopshq.charts;

import static dev.gitopshq.charts.AgentChartRbacTest.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.testkube.RealKube;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The agent chart's RBAC enforced by a real API server: the chart's ServiceAccount, roles and
 * bindings are applied to kube-apiserver (RBAC on), and a client holding a bound token of that
 * ServiceAccount, as the agent in the cluster does, is allowed exactly what the profile and
 * capabilities grant; everything else is refused with 403 by the API server itself.
 */
@Tag("e2e")
class AgentChartRbacIT {
  static final RealKube KUBE = RealKube.shared();
  static final String APPS = "rbac-apps";
  static final Set<Class<? extends HasMetadata>> RBAC_KINDS =
      Set.of(
          ServiceAccount.class,
          ClusterRole.class,
          ClusterRoleBinding.class,
          Role.class,
          RoleBinding.class);

  @BeforeAll
  static void workloadToActOn() {
    try (KubernetesClient admin = KUBE.adminClient()) {
      admin
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(APPS).endMetadata().build())
          .serverSideApply();
      admin
          .apps()
          .deployments()
          .inNamespace(APPS)
          .resource(
              new DeploymentBuilder()
                  .withNewMetadata()
                  .withName("web")
                  .endMetadata()
                  .withNewSpec()
                  .withReplicas(1)
                  .withNewSelector()
                  .addToMatchLabels("app", "web")
                  .endSelector()
                  .withNewTemplate()
                  .withNewMetadata()
                  .addToLabels("app", "web")
                  .endMetadata()
                  .withNewSpec()
                  .addNewContainer()
                  .withName("web")
                  .withImage("registry.example/web:1.0")
                  .endContainer()
                  .endSpec()
                  .endTemplate()
                  .endSpec()
                  .build())
          .serverSideApply();
    }
  }

  /** Installs the chart's RBAC objects as release {@code release} into its own namespace. */
  static KubernetesClient install(String release, Map<String, Object> values) {
    String namespace = release;
    Rendered r = Chart.agent().render(release, namespace, values);
    try (KubernetesClient admin = KUBE.adminClient()) {
      admin
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
          .serverSideApply();
      for (HasMetadata o : r.objects()) {
        if (RBAC_KINDS.contains(o.getClass())) {
          if (o.getMetadata().getNamespace() == null
              && !(o instanceof ClusterRole)
              && !(o instanceof ClusterRoleBinding)) {
            o.getMetadata().setNamespace(namespace);
          }
          admin.resource(o).forceConflicts().serverSideApply();
        }
      }
      String sa = r.all(ServiceAccount.class).getFirst().getMetadata().getName();
      return KUBE.serviceAccountClient(namespace, sa);
    }
  }

  static boolean can(KubernetesClient c, String verb, String group, String resource, String sub) {
    SelfSubjectAccessReview review =
        new SelfSubjectAccessReviewBuilder()
            .withNewSpec()
            .withNewResourceAttributes()
            .withNamespace(APPS)
            .withVerb(verb)
            .withGroup(group)
            .withResource(resource)
            .withSubresource(sub)
            .endResourceAttributes()
            .endSpec()
            .build();
    return c.authorization().v1().selfSubjectAccessReview().create(review).getStatus().getAllowed();
  }

  @Test
  void readonlyAgentSeesTheClusterAndIsRefusedEveryWrite() {
    try (KubernetesClient agent = install("rbac-readonly", Map.of())) {
      assertThat(agent.pods().inAnyNamespace().list().getItems()).isNotNull();
      assertThat(agent.apps().deployments().inNamespace(APPS).withName("web").get()).isNotNull();
      assertThat(can(agent, "get", "", "pods", "log")).isTrue();
      assertThat(can(agent, "watch", "argoproj.io", "applications", null)).isTrue();

      assertThat(can(agent, "patch", "apps", "deployments", null)).isFalse();
      assertThatThrownBy(
              () -> agent.apps().deployments().inNamespace(APPS).withName("web").scale(3))
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
      assertThatThrownBy(() -> agent.namespaces().withName(APPS).delete())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
    }
  }

  @Test
  void readwriteWithScaleMayScaleButNotDeleteOrWriteSecrets() {
    try (KubernetesClient agent =
        install(
            "rbac-scale",
            only("readwrite", "observe", "diagnosticsRead", "argocdRead", "kubernetesScale"))) {
      agent
          .apps()
          .deployments()
          .inNamespace(APPS)
          .withName("web")
          .edit(d -> new DeploymentBuilder(d).editSpec().withReplicas(2).endSpec().build());
      try (KubernetesClient admin = KUBE.adminClient()) {
        assertThat(
                admin
                    .apps()
                    .deployments()
                    .inNamespace(APPS)
                    .withName("web")
                    .get()
                    .getSpec()
                    .getReplicas())
            .isEqualTo(2);
      }
      assertThat(can(agent, "delete", "apps", "deployments", null)).isFalse();
      assertThat(can(agent, "create", "", "secrets", null)).isFalse();
      assertThatThrownBy(
              () -> agent.apps().deployments().inNamespace(APPS).withName("web").delete())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
    }
  }

  @Test
  void theApiServerRunsWhatItStores() {
    // The point of a real control plane: the Deployment above has Pods, scheduled on kwok's node.
    try (KubernetesClient admin = KUBE.adminClient()) {
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(
                          admin.pods().inNamespace(APPS).withLabel("app", "web").list().getItems())
                      .isNotEmpty()
                      .allSatisfy(
                          p -> {
                            assertThat(p.getSpec().getNodeName()).isEqualTo("kwok-node-0");
                            assertThat(p.getStatus().getPhase()).isEqualTo("Running");
                          }));
    }
  }
}
