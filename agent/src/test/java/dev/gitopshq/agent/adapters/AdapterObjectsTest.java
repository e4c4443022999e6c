package dev.gitopshq.agent.adapters;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.agent.v1.AdapterBinding;
import dev.gitopshq.agent.v1.AdapterCredential;
import dev.gitopshq.agent.v1.TenantFence;
import dev.gitopshq.agent.v1.TenantFences;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The objects an adapter binding becomes, and the tenant's RBAC derived from the fence. */
class AdapterObjectsTest {
  static final List<TenantRules.Resource> CLUSTER =
      List.of(
          new TenantRules.Resource("", "ConfigMap", "configmaps", true),
          new TenantRules.Resource("", "Pod", "pods", true),
          new TenantRules.Resource("", "Pod", "pods/log", true),
          new TenantRules.Resource("", "Namespace", "namespaces", false),
          new TenantRules.Resource("apps", "Deployment", "deployments", true),
          new TenantRules.Resource("rbac.authorization.k8s.io", "Role", "roles", true),
          new TenantRules.Resource(
              "rbac.authorization.k8s.io", "ClusterRole", "clusterroles", false),
          new TenantRules.Resource(
              "apiextensions.k8s.io",
              "CustomResourceDefinition",
              "customresourcedefinitions",
              false),
          new TenantRules.Resource("networking.k8s.io", "IngressClass", "ingressclasses", false));

  static AdapterBinding binding(String adapter, TenantFence fence) {
    return AdapterBinding.newBuilder()
        .setAdapter(adapter)
        .setProject("shop")
        .setEnvironment("dev")
        .setTenant("acme")
        .setRepoUrl("https://hub.example/git/org/shop.git")
        .setBranch("deploy/dev")
        .setPath("eu-1/acme")
        .addNamespaces("acme-dev")
        .addCreatedNamespaces("acme-dev")
        .setFence(fence)
        .setCredential("gitopshq-shop-git")
        .setIntervalSeconds(300)
        .build();
  }

  @Test
  void theDefaultFenceGivesEveryNamespacedKindButRbacAndNoClusterKindButTheOwnNamespace() {
    TenantRules.Rules rules =
        TenantRules.derive(TenantFences.DEFAULT, CLUSTER, List.of("acme-dev"));
    assertThat(rules.namespaced())
        .containsExactly(
            Map.of(
                "apiGroups",
                List.of(""),
                "resources",
                List.of("configmaps", "pods"),
                "verbs",
                List.of("*")),
            Map.of(
                "apiGroups",
                List.of("apps"),
                "resources",
                List.of("deployments"),
                "verbs",
                List.of("*")));
    assertThat(rules.cluster())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.get("resources")).isEqualTo(List.of("namespaces"));
              assertThat(r.get("resourceNames")).isEqualTo(List.of("acme-dev"));
              assertThat(r.get("verbs")).isEqualTo(List.of("get", "patch", "update", "delete"));
            });
  }

  @Test
  void aClusterKindTheFenceAllowsIsGrantedClusterWideAndDeniedKindsWinOverIt() {
    TenantFence fence =
        TenantFence.newBuilder()
            .addClusterScopedKinds("networking.k8s.io/IngressClass")
            .addClusterScopedKinds("rbac.authorization.k8s.io/ClusterRole")
            .addDeniedKinds("rbac.authorization.k8s.io/*")
            .addDeniedKinds("ConfigMap")
            .build();
    TenantRules.Rules rules = TenantRules.derive(fence, CLUSTER, List.of());
    assertThat(rules.cluster())
        .containsExactly(
            Map.of(
                "apiGroups", List.of("networking.k8s.io"),
                "resources", List.of("ingressclasses"),
                "verbs", List.of("*")));
    assertThat(rules.namespaced().toString()).doesNotContain("configmaps").doesNotContain("roles");
  }

  @Test
  void aFluxBindingRunsAsItsTenantsServiceAccountBoundOnlyInItsNamespaces() {
    AdapterBinding b = binding("flux", TenantFences.DEFAULT);
    List<GenericKubernetesResource> objects =
        AdapterObjects.flux(
            b, TenantRules.derive(TenantFences.DEFAULT, CLUSTER, List.of("acme-dev")));
    assertThat(objects)
        .extracting(
            o ->
                o.getKind()
                    + " "
                    + o.getMetadata().getNamespace()
                    + "/"
                    + o.getMetadata().getName())
        .containsExactly(
            "ServiceAccount flux-system/gitopshq-shop-dev-acme",
            "ClusterRole null/gitopshq-shop-dev-acme",
            "RoleBinding acme-dev/gitopshq-shop-dev-acme",
            "ClusterRole null/gitopshq-shop-dev-acme-cluster",
            "ClusterRoleBinding null/gitopshq-shop-dev-acme-cluster",
            "GitRepository flux-system/gitopshq-shop-dev",
            "Kustomization flux-system/gitopshq-shop-dev-acme");
    GenericKubernetesResource ks = objects.getLast();
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) ks.getAdditionalProperties().get("spec");
    assertThat(spec)
        .containsEntry("serviceAccountName", "gitopshq-shop-dev-acme")
        .containsEntry("path", "./eu-1/acme")
        .containsEntry("prune", true)
        .containsEntry("sourceRef", Map.of("kind", "GitRepository", "name", "gitopshq-shop-dev"));
    assertThat(ks.getMetadata().getLabels())
        .containsEntry("gitopshq.dev/delivery", "adapter")
        .containsEntry("gitopshq.dev/tenant", "acme");
  }

  @Test
  void anArgoBindingGetsAnAppProjectWithTheFencesListsAndAnApplicationInIt() {
    List<GenericKubernetesResource> objects =
        AdapterObjects.argo(binding("argocd", TenantFences.DEFAULT));
    @SuppressWarnings("unchecked")
    Map<String, Object> project =
        (Map<String, Object>) objects.get(0).getAdditionalProperties().get("spec");
    assertThat(project.get("sourceRepos"))
        .isEqualTo(List.of("https://hub.example/git/org/shop.git"));
    assertThat(project.get("destinations"))
        .isEqualTo(
            List.of(Map.of("server", "https://kubernetes.default.svc", "namespace", "acme-dev")));
    assertThat(project.get("clusterResourceWhitelist"))
        .isEqualTo(List.of(Map.of("group", "", "kind", "Namespace")));
    assertThat(project.get("namespaceResourceBlacklist"))
        .isEqualTo(
            List.of(
                Map.of("group", "rbac.authorization.k8s.io", "kind", "*"),
                Map.of("group", "admissionregistration.k8s.io", "kind", "*")));
    @SuppressWarnings("unchecked")
    Map<String, Object> app =
        (Map<String, Object>) objects.get(1).getAdditionalProperties().get("spec");
    assertThat(app.get("project")).isEqualTo("gitopshq-shop-dev-acme");
    assertThat(app.get("source"))
        .isEqualTo(
            Map.of(
                "repoURL",
                "https://hub.example/git/org/shop.git",
                "targetRevision",
                "deploy/dev",
                "path",
                "eu-1/acme",
                "directory",
                Map.of("recurse", true)));
  }

  @Test
  void aDeployTokenBecomesABasicAuthSecretForFluxAndARepositorySecretForArgo() {
    AdapterCredential c =
        AdapterCredential.newBuilder()
            .setAdapter("flux")
            .setName("gitopshq-shop-git")
            .setProject("shop")
            .setRepoUrl("https://hub.example/git/org/shop.git")
            .setUsername("flux")
            .setPassword("ghqd_secret")
            .setTokenId("t-1")
            .build();
    GenericKubernetesResource flux = AdapterObjects.secret(c);
    assertThat(flux.getAdditionalProperties().get("type")).isEqualTo("kubernetes.io/basic-auth");
    assertThat(flux.getMetadata().getNamespace()).isEqualTo("flux-system");
    GenericKubernetesResource argo =
        AdapterObjects.secret(c.toBuilder().setAdapter("argocd").build());
    assertThat(argo.getMetadata().getNamespace()).isEqualTo("argocd");
    assertThat(argo.getMetadata().getLabels())
        .containsEntry("argocd.argoproj.io/secret-type", "repository");
    assertThat(argo.getAdditionalProperties().get("stringData").toString())
        .contains("url=https://hub.example/git/org/shop.git")
        .contains("type=git");
  }

  @Test
  void longNamesAreShortenedWithAHashAndStayDistinct() {
    String a =
        dev.gitopshq.agent.v1.AdapterNames.name(
            "a-very-long-project-name-for-testing", "production-europe", "tenant-one");
    String b =
        dev.gitopshq.agent.v1.AdapterNames.name(
            "a-very-long-project-name-for-testing", "production-europe", "tenant-two");
    assertThat(a)
        .hasSizeLessThanOrEqualTo(63)
        .isNotEqualTo(b)
        .matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  }
}
