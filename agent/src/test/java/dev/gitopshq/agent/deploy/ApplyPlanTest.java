package dev.gitopshq.agent.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.agent.v1.AppliedObject;
import dev.gitopshq.agent.v1.ApplyFile;
import dev.gitopshq.agent.v1.ObjectResult;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ApplyPlanTest {
  /** What a cluster's discovery says: ConfigMaps and Deployments namespaced, ClusterRoles not. */
  static final ApplyPlan.Scopes SCOPES =
      (apiVersion, kind) ->
          switch (kind) {
            case "ConfigMap", "Deployment", "Service" -> Optional.of(true);
            case "ClusterRole", "Namespace" -> Optional.of(false);
            default -> Optional.empty();
          };

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
    ApplyPlan plan = ApplyPlan.of("shop", "dev", List.of(CONFIG_NO_NS), List.of(), "apps", SCOPES);
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
    ApplyPlan plan = ApplyPlan.of("shop", "dev", List.of(CONFIG_NO_NS), List.of(), "", SCOPES);
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
            SCOPES);
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
            SCOPES);
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
            SCOPES);
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
            SCOPES);
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
            SCOPES);
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
}
