package dev.gitopshq.agent.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.gitopshq.agent.v1.AppliedObject;
import dev.gitopshq.agent.v1.ApplyFile;
import dev.gitopshq.agent.v1.ObjectResult;
import dev.gitopshq.agent.v1.TenantFence;
import dev.gitopshq.agent.v1.TenantFences;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ApplyPlanTest {
  /** What a cluster's discovery says: ConfigMaps and Deployments namespaced, ClusterRoles not. */
  static final ApplyPlan.Scopes SCOPES =
      (apiVersion, kind) ->
          switch (kind) {
            case "ConfigMap", "Deployment", "Service", "RoleBinding" -> Optional.of(true);
            case "ClusterRole", "ClusterRoleBinding", "Namespace" -> Optional.of(false);
            default -> Optional.empty();
          };

  /** A fence that lets a project deliver ClusterRoles and RBAC, into kube-system too. */
  static final TenantFence OPEN =
      TenantFence.newBuilder()
          .addAllowedNamespaces("kube-system")
          .addAllowedNamespaces("*")
          .addClusterScopedKinds("rbac.authorization.k8s.io/*")
          .build();

  /** A cluster that holds none of the release's objects yet. */
  static final ApplyPlan.Live NOTHING_LIVE = identity -> Optional.empty();

  static ApplyFile file(String path, String yaml) {
    return ApplyFile.newBuilder().setPath(path).setContent(yaml).build();
  }

  static AppliedObject obj(String tenant, String apiVersion, String kind, String ns, String name) {
    return AppliedObject.newBuilder()
        .setTenant(tenant)
        .setApiVersion(apiVersion)
        .setKind(kind)
        .setNamespace(ns)
        .setName(name)
        .build();
  }

  static final ApplyFile CONFIG_NO_NS =
      file(
          "acme/web/configmap-web.yaml",
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n");

  @Test
  void aNamespacedObjectWithoutANamespaceGetsTheDefaultNamespace() {
    ApplyPlan plan =
        ApplyPlan.of(
            "shop",
            "dev",
            List.of(CONFIG_NO_NS),
            List.of(),
            "apps",
            TenantFences.DEFAULT,
            SCOPES,
            NOTHING_LIVE);
    assertThat(plan.failures()).isEmpty();
    assertThat(plan.apply())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.object().getMetadata().getNamespace()).isEqualTo("apps");
              assertThat(p.tenant()).isEqualTo("acme");
              assertThat(p.object().getMetadata().getLabels())
                  .containsEntry("app.kubernetes.io/managed-by", "gitopshq")
                  .containsEntry("gitopshq.dev/delivery", "direct")
                  .containsEntry("gitopshq.dev/project", "shop")
                  .containsEntry("gitopshq.dev/environment", "dev")
                  .containsEntry("gitopshq.dev/tenant", "acme");
            });
  }

  @Test
  void aNamespacedObjectWithNeitherFailsWithAClearMessage() {
    ApplyPlan plan =
        ApplyPlan.of(
            "shop",
            "dev",
            List.of(CONFIG_NO_NS),
            List.of(),
            "",
            TenantFences.DEFAULT,
            SCOPES,
            NOTHING_LIVE);
    assertThat(plan.apply()).isEmpty();
    assertThat(plan.failures())
        .singleElement()
        .extracting(ObjectResult::getMessage)
        .isEqualTo("names no namespace and the agent has no directDeploy.defaultNamespace");
  }

  @Test
  void theFilesNamespaceWinsAndClusterScopedObjectsHaveNone() {
    ApplyPlan plan =
        ApplyPlan.of(
            "shop",
            "dev",
            List.of(
                file(
                    "acme/web/configmap-web.yaml",
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: acme-dev\n"),
                file(
                    "acme/web/clusterrole-web.yaml",
                    "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n"
                        + "  name: web\n  namespace: acme-dev\n")),
            List.of(),
            "apps",
            OPEN,
            SCOPES,
            NOTHING_LIVE);
    assertThat(plan.apply())
        .extracting(p -> p.object().getKind() + " " + p.object().getMetadata().getNamespace())
        // ClusterRoles go before ConfigMaps.
        .containsExactly("ClusterRole null", "ConfigMap acme-dev");
  }

  @Test
  void aKindTheClusterDoesNotServeFails() {
    ApplyPlan plan =
        ApplyPlan.of(
            "shop",
            "dev",
            List.of(
                file(
                    "acme/web/widget-w.yaml",
                    "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n")),
            List.of(),
            "apps",
            TenantFences.DEFAULT,
            SCOPES,
            NOTHING_LIVE);
    assertThat(plan.failures())
        .singleElement()
        .extracting(ObjectResult::getMessage)
        .isEqualTo("the cluster does not serve Widget in example.com/v1");
  }

  @Test
  void prunesWhatEarlierAppliesPlacedAndTheReleaseNoLongerHolds() {
    List<AppliedObject> previous =
        List.of(
            obj("acme", "v1", "ConfigMap", "apps", "web"),
            obj("acme", "v1", "ConfigMap", "apps", "old"),
            // Same object under a newer apiVersion: not pruned.
            obj("acme", "apps/v1beta2", "Deployment", "apps", "web"),
            // Another tenant's object of the same name is another object.
            obj("globex", "v1", "ConfigMap", "apps", "web"));
    ApplyPlan plan =
        ApplyPlan.of(
            "shop",
            "dev",
            List.of(
                CONFIG_NO_NS,
                file(
                    "acme/web/deployment-web.yaml",
                    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n")),
            previous,
            "apps",
            TenantFences.DEFAULT,
            SCOPES,
            NOTHING_LIVE);
    assertThat(plan.prune())
        .extracting(o -> o.getTenant() + " " + o.getKind() + " " + o.getName())
        .containsExactly("acme ConfigMap old", "globex ConfigMap web");
  }

  @Test
  void nothingIsPrunedWhenAFileCannotBePlanned() {
    ApplyPlan plan =
        ApplyPlan.of(
            "shop",
            "dev",
            List.of(CONFIG_NO_NS, file("acme/web/broken.yaml", "kind: [unclosed")),
            List.of(obj("acme", "v1", "ConfigMap", "apps", "old")),
            "apps",
            TenantFences.DEFAULT,
            SCOPES,
            NOTHING_LIVE);
    assertThat(plan.failures())
        .singleElement()
        .extracting(ObjectResult::getMessage)
        .asString()
        .startsWith("acme/web/broken.yaml is not valid YAML");
    assertThat(plan.prune()).isEmpty();
    assertThat(plan.apply()).hasSize(1);
  }

  @Test
  void kustomizeBindingsAreRefusedAndObjectsWithoutANameFail() {
    ApplyPlan plan =
        ApplyPlan.of(
            "shop",
            "dev",
            List.of(
                file("acme/base/kustomization.yaml", "resources: []\n"),
                file("acme/web/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n")),
            List.of(),
            "apps",
            TenantFences.DEFAULT,
            SCOPES,
            NOTHING_LIVE);
    assertThat(plan.failures())
        .extracting(ObjectResult::getMessage)
        .containsExactly(
            "acme/base/kustomization.yaml is a Kustomize binding, which direct deploy does not"
                + " build; deliver it with Argo CD or Flux",
            "has no metadata.name");
  }

  @Test
  void ownershipIsTheDeliverysLabels() {
    assertThat(ApplyPlan.owns(ApplyPlan.labels("shop", "dev", "acme"), "shop", "dev", "acme"))
        .isTrue();
    assertThat(ApplyPlan.owns(ApplyPlan.labels("shop", "prod", "acme"), "shop", "dev", "acme"))
        .isFalse();
    assertThat(ApplyPlan.owns(java.util.Map.of("app", "web"), "shop", "dev", "acme")).isFalse();
  }

  static final ApplyFile BINDING =
      file(
          "acme/web/crb-web.yaml",
          "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n"
              + "  name: web-admin\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n"
              + "  kind: ClusterRole\n  name: cluster-admin\n");

  static final ApplyFile SYSTEM_CONFIG =
      file(
          "acme/web/configmap-system.yaml",
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: kube-system\n");

  static ApplyPlan plan(TenantFence fence, ApplyPlan.Live live, ApplyFile... files) {
    return ApplyPlan.of(
        "shop",
        "dev",
        List.of(files),
        List.of(obj("acme", "v1", "ConfigMap", "apps", "old")),
        "apps",
        fence,
        SCOPES,
        live);
  }

  @Test
  void theDefaultFenceRefusesAClusterRoleBindingAndNothingIsPruned() {
    ApplyPlan plan = plan(TenantFences.DEFAULT, NOTHING_LIVE, CONFIG_NO_NS, BINDING);
    assertThat(plan.refused())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getAction()).isEqualTo("refused");
              assertThat(r.getObject().getKind()).isEqualTo("ClusterRoleBinding");
              assertThat(r.getPath()).isEqualTo("acme/web/crb-web.yaml");
              assertThat(r.getMessage())
                  .isEqualTo(
                      "ClusterRoleBinding web-admin: kind ClusterRoleBinding is denied by the"
                          + " project's fence (rbac.authorization.k8s.io/*)");
            });
    assertThat(plan.apply()).extracting(p -> p.object().getKind()).containsExactly("ConfigMap");
    assertThat(plan.prune()).isEmpty();
  }

  @Test
  void theDefaultFenceRefusesKubeSystem() {
    ApplyPlan plan = plan(TenantFences.DEFAULT, NOTHING_LIVE, SYSTEM_CONFIG);
    assertThat(plan.refused())
        .singleElement()
        .extracting(ObjectResult::getMessage)
        .isEqualTo(
            "ConfigMap kube-system/web: namespace kube-system is reserved (kube-system,"
                + " kube-public, kube-node-lease, flux-system, argocd); the project's fence must"
                + " name it to allow it");
    assertThat(plan.apply()).isEmpty();
  }

  @Test
  void aNamespaceTheDefaultNamespaceResolvesToIsFencedToo() {
    ApplyPlan plan =
        ApplyPlan.of(
            "shop",
            "dev",
            List.of(CONFIG_NO_NS),
            List.of(),
            "kube-system",
            TenantFences.DEFAULT,
            SCOPES,
            NOTHING_LIVE);
    assertThat(plan.refused())
        .singleElement()
        .extracting(ObjectResult::getMessage)
        .asString()
        .startsWith("ConfigMap kube-system/web: namespace kube-system is reserved");
  }

  @Test
  void whatTheFenceAllowsIsPlanned() {
    ApplyPlan plan = plan(OPEN, NOTHING_LIVE, SYSTEM_CONFIG, BINDING);
    assertThat(plan.refused()).isEmpty();
    assertThat(plan.apply())
        .extracting(p -> p.object().getKind())
        .containsExactlyInAnyOrder("ClusterRoleBinding", "ConfigMap");
    assertThat(plan.prune()).extracting(AppliedObject::getName).containsExactly("old");
  }

  @Test
  void anExistingObjectWithoutTheDeliverysLabelsIsRefused() {
    ApplyPlan plan =
        plan(
            TenantFences.DEFAULT,
            identity -> Optional.of(Map.of("app", "web", "app.kubernetes.io/managed-by", "helm")),
            CONFIG_NO_NS);
    assertThat(plan.apply()).isEmpty();
    assertThat(plan.prune()).isEmpty();
    assertThat(plan.refused())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getAction()).isEqualTo("refused");
              assertThat(r.getHealth()).isEqualTo("failed");
              assertThat(r.getMessage())
                  .isEqualTo(
                      "ConfigMap apps/web exists and is not managed by GitOpsHQ for project shop;"
                          + " delete it or label it to hand it over"
                          + " (app.kubernetes.io/managed-by=gitopshq, gitopshq.dev/delivery=direct,"
                          + " gitopshq.dev/project=shop, gitopshq.dev/environment=dev,"
                          + " gitopshq.dev/tenant=acme)");
            });
  }

  @Test
  void anExistingObjectOfThisDeliveryIsPlannedAndAnotherEnvironmentsIsRefused() {
    assertThat(
            plan(
                    TenantFences.DEFAULT,
                    identity -> Optional.of(ApplyPlan.labels("shop", "dev", "acme")),
                    CONFIG_NO_NS)
                .apply())
        .hasSize(1);
    assertThat(
            plan(
                    TenantFences.DEFAULT,
                    identity -> Optional.of(ApplyPlan.labels("shop", "prod", "acme")),
                    CONFIG_NO_NS)
                .refused())
        .singleElement()
        .extracting(ObjectResult::getMessage)
        .asString()
        .contains("exists and is not managed by GitOpsHQ for project shop");
    // The project's labels without managed-by are not enough.
    Map<String, String> unmanaged = new HashMap<>(ApplyPlan.labels("shop", "dev", "acme"));
    unmanaged.remove("app.kubernetes.io/managed-by");
    assertThat(
            plan(TenantFences.DEFAULT, identity -> Optional.of(unmanaged), CONFIG_NO_NS).refused())
        .hasSize(1);
  }

  @Test
  void anObjectWhoseOwnerCannotBeReadIsRefusedAndTheFenceIsAskedFirst() {
    List<String> asked = new ArrayList<>();
    ApplyPlan plan =
        plan(
            TenantFences.DEFAULT,
            identity -> {
              asked.add(identity.getKind());
              throw new ApplyPlan.Unreadable("configmaps \"web\" is forbidden");
            },
            CONFIG_NO_NS,
            BINDING);
    assertThat(plan.refused())
        .extracting(ObjectResult::getMessage)
        .containsExactlyInAnyOrder(
            "ConfigMap apps/web: cannot tell whether it exists and who manages it, so it is not"
                + " applied: configmaps \"web\" is forbidden",
            "ClusterRoleBinding web-admin: kind ClusterRoleBinding is denied by the project's"
                + " fence (rbac.authorization.k8s.io/*)");
    // The cluster is never asked about an object the fence refuses.
    assertThat(asked).containsExactly("ConfigMap");
  }

  @Test
  void anObjectOutsideTheFenceIsNeverPruned() {
    ApplyPlan plan =
        ApplyPlan.of(
            "shop",
            "dev",
            List.of(CONFIG_NO_NS),
            List.of(
                obj("acme", "v1", "ConfigMap", "apps", "old"),
                obj("acme", "v1", "ConfigMap", "kube-system", "old"),
                obj("acme", "rbac.authorization.k8s.io/v1", "RoleBinding", "apps", "old")),
            "apps",
            TenantFences.DEFAULT,
            SCOPES,
            NOTHING_LIVE);
    assertThat(plan.prune())
        .extracting(o -> o.getKind() + " " + o.getNamespace() + "/" + o.getName())
        .containsExactly("ConfigMap apps/old");
    assertThat(plan.kept())
        .extracting(ObjectResult::getAction, ObjectResult::getMessage)
        .containsExactly(
            tuple(
                "kept",
                "not pruned, it is outside the project's fence: ConfigMap kube-system/old:"
                    + " namespace kube-system is reserved (kube-system, kube-public,"
                    + " kube-node-lease, flux-system, argocd); the project's fence must name it"
                    + " to allow it"),
            tuple(
                "kept",
                "not pruned, it is outside the project's fence: RoleBinding apps/old: kind"
                    + " RoleBinding is denied by the project's fence (rbac.authorization.k8s.io/*)"));
  }
}
