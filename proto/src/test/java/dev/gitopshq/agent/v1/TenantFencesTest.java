package dev.gitopshq.agent.v1;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TenantFencesTest {
  private static final TenantFence SHOP =
      TenantFence.newBuilder()
          .addAllowedNamespaces("shop-*")
          .addAllowedNamespaces("billing")
          .addClusterScopedKinds("storage.k8s.io/StorageClass")
          .addAllDeniedKinds(TenantFences.DEFAULT_DENIED_KINDS)
          .build();

  @Test
  void theDefaultFenceKeepsAProjectOutOfTheReservedNamespaces() {
    TenantFence f = TenantFences.DEFAULT;
    assertThat(TenantFences.namespaceRefusal(f, "demo-dev")).isNull();
    assertThat(TenantFences.namespaceRefusal(f, "kube-system"))
        .contains("namespace kube-system is reserved");
    assertThat(TenantFences.namespaceRefusal(f, "flux-system")).contains("reserved");
  }

  @Test
  void theDefaultFenceRefusesRbacAdmissionAndEveryClusterScopedKind() {
    TenantFence f = TenantFences.DEFAULT;
    assertThat(
            TenantFences.objectRefusal(
                f, "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "x", "", false))
        .isEqualTo(
            "ClusterRoleBinding x: kind ClusterRoleBinding is denied by the project's fence"
                + " (rbac.authorization.k8s.io/*)");
    assertThat(
            TenantFences.objectRefusal(
                f, "rbac.authorization.k8s.io/v1", "RoleBinding", "x", "demo-dev", true))
        .contains("denied");
    assertThat(
            TenantFences.objectRefusal(
                f,
                "admissionregistration.k8s.io/v1",
                "MutatingWebhookConfiguration",
                "hook",
                "",
                false))
        .contains("denied");
    assertThat(
            TenantFences.objectRefusal(f, "storage.k8s.io/v1", "StorageClass", "fast", "", false))
        .isEqualTo(
            "StorageClass fast: cluster-scoped kind storage.k8s.io/StorageClass is not allowed by"
                + " the project's fence (it allows no cluster-scoped kinds)");
    assertThat(TenantFences.objectRefusal(f, "apps/v1", "Deployment", "web", "demo-dev", true))
        .isNull();
  }

  @Test
  void allowedNamespacesAreNamesOrPatternsAndReservedOnesMustBeNamedExactly() {
    assertThat(TenantFences.namespaceRefusal(SHOP, "shop-dev")).isNull();
    assertThat(TenantFences.namespaceRefusal(SHOP, "billing")).isNull();
    assertThat(TenantFences.namespaceRefusal(SHOP, "other-dev"))
        .isEqualTo("namespace other-dev is outside the project's fence (allowed: shop-*, billing)");
    TenantFence everything = TenantFence.newBuilder().addAllowedNamespaces("*").build();
    assertThat(TenantFences.namespaceRefusal(everything, "anything")).isNull();
    assertThat(TenantFences.namespaceRefusal(everything, "kube-system"))
        .contains("a reserved namespace must be named exactly");
    TenantFence system = TenantFence.newBuilder().addAllowedNamespaces("kube-system").build();
    assertThat(TenantFences.namespaceRefusal(system, "kube-system")).isNull();
  }

  @Test
  void aNamespaceObjectIsAllowedWhenItsNamespaceIs() {
    assertThat(TenantFences.objectRefusal(SHOP, "v1", "Namespace", "shop-dev", "", false)).isNull();
    assertThat(TenantFences.objectRefusal(SHOP, "v1", "Namespace", "kube-system", "", false))
        .contains("Namespace kube-system: namespace kube-system is outside the project's fence");
  }

  @Test
  void listedClusterScopedKindsPassButDeniedKindsWin() {
    assertThat(
            TenantFences.objectRefusal(
                SHOP, "storage.k8s.io/v1", "StorageClass", "fast", "", false))
        .isNull();
    TenantFence both =
        SHOP.toBuilder().addClusterScopedKinds("rbac.authorization.k8s.io/ClusterRole").build();
    assertThat(
            TenantFences.objectRefusal(
                both, "rbac.authorization.k8s.io/v1", "ClusterRole", "admin", "", false))
        .contains("denied");
    assertThat(TenantFences.objectRefusal(SHOP, "apps/v1", "Deployment", "web", "other", true))
        .isEqualTo(
            "Deployment other/web: namespace other is outside the project's fence (allowed:"
                + " shop-*, billing)");
  }

  @Test
  void kindEntriesNameAKindAGroupsKindOrAWholeGroup() {
    assertThat(TenantFences.kindMatches("Secret", "", "Secret")).isTrue();
    assertThat(TenantFences.kindMatches("/Secret", "", "Secret")).isTrue();
    assertThat(TenantFences.kindMatches("/Secret", "example.com", "Secret")).isFalse();
    assertThat(TenantFences.kindMatches("apps/*", "apps", "DaemonSet")).isTrue();
    assertThat(TenantFences.kindMatches("apps/*", "batch", "Job")).isFalse();
    assertThat(TenantFences.kindEntryProblem("apps/Deployment")).isNull();
    assertThat(TenantFences.kindEntryProblem("/ConfigMap")).isNull();
    assertThat(TenantFences.kindEntryProblem("*")).contains("not a kind entry");
    assertThat(TenantFences.kindEntryProblem("deployment")).contains("not a kind entry");
    assertThat(TenantFences.namespaceEntryProblem("team-*")).isNull();
    assertThat(TenantFences.namespaceEntryProblem("Team")).contains("not a namespace");
    assertThat(TenantFences.namespaceEntryProblem("a-")).contains("not a namespace");
  }

  @Test
  void globsMatchAnyRunIncludingNone() {
    assertThat(TenantFences.glob("shop-*", "shop-")).isTrue();
    assertThat(TenantFences.glob("*-prod", "eu-prod")).isTrue();
    assertThat(TenantFences.glob("a*b*c", "axxbyyc")).isTrue();
    assertThat(TenantFences.glob("a*b*c", "axxbyy")).isFalse();
    assertThat(TenantFences.glob("shop", "shop-dev")).isFalse();
  }

  @Test
  void builtInKindsKnowTheirScopeAndUnknownKindsAreUnknown() {
    assertThat(KindScopes.namespaced("apps/v1", "Deployment")).contains(true);
    // Groups with a single kind are registered too.
    assertThat(KindScopes.namespaced("policy/v1", "PodDisruptionBudget")).contains(true);
    assertThat(KindScopes.namespaced("autoscaling/v2", "HorizontalPodAutoscaler")).contains(true);
    assertThat(KindScopes.namespaced("v1", "Namespace")).contains(false);
    assertThat(KindScopes.namespaced("rbac.authorization.k8s.io/v1", "ClusterRole"))
        .contains(false);
    assertThat(KindScopes.namespaced("monitoring.coreos.com/v1", "ServiceMonitor")).isEmpty();
    assertThat(KindScopes.namespaced("example.com/v1", "Deployment")).isEmpty();
    assertThat(KindScopes.group("v1")).isEmpty();
    assertThat(KindScopes.group("apps/v1")).isEqualTo("apps");
  }
}
