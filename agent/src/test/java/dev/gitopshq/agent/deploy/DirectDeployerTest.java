package dev.gitopshq.agent.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.agent.config.DirectDeployConfig;
import dev.gitopshq.agent.v1.AppliedObject;
import dev.gitopshq.agent.v1.ApplyFile;
import dev.gitopshq.agent.v1.ApplyRelease;
import dev.gitopshq.agent.v1.ApplyResult;
import dev.gitopshq.agent.v1.TenantFences;
import dev.gitopshq.testkube.TestKube;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The deployer's guards, against the Fabric8 mock. */
class DirectDeployerTest {
  TestKube kube;

  @BeforeEach
  void start() {
    kube = TestKube.start().seedDemo();
  }

  @AfterEach
  void stop() {
    kube.close();
  }

  static ApplyRelease release(String id) {
    return ApplyRelease.newBuilder()
        .setApplyId(id)
        .setProject("shop")
        .setEnvironment("dev")
        .addFiles(
            ApplyFile.newBuilder()
                .setPath("acme/web/configmap-web.yaml")
                .setContent(
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: demo\n"))
        .build();
  }

  DirectDeployer deployer() {
    return new DirectDeployer(DirectDeployConfig.defaults(), kube::client, Clock.systemUTC());
  }

  static ApplyFile file(String path, String yaml) {
    return ApplyFile.newBuilder().setPath(path).setContent(yaml).build();
  }

  static final ApplyFile CLUSTER_ADMIN =
      file(
          "acme/web/crb-web.yaml",
          "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n"
              + "  name: web-admin\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n"
              + "  kind: ClusterRole\n  name: cluster-admin\nsubjects:\n"
              + "- kind: ServiceAccount\n  name: web\n  namespace: demo\n");

  static final ApplyFile SYSTEM_CONFIG =
      file(
          "acme/web/configmap-system.yaml",
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: kube-system\n"
              + "data:\n  a: b\n");

  /** The demo Deployment's identity, as a release would hold it (a new image). */
  static final ApplyFile DEMO_DEPLOYMENT =
      file(
          "acme/web/deployment-web.yaml",
          """
          apiVersion: apps/v1
          kind: Deployment
          metadata:
            name: web
            namespace: demo
          spec:
            replicas: 5
            selector:
              matchLabels: {app: web}
            template:
              metadata:
                labels: {app: web}
              spec:
                containers:
                - name: web
                  image: registry.example/takeover:1
          """);

  @Test
  void aReleaseWithAnObjectOutsideTheFenceAppliesAndPrunesNothing() {
    kube.client()
        .configMaps()
        .inNamespace("demo")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("old")
                .withLabels(ApplyPlan.labels("shop", "dev", "acme"))
                .endMetadata()
                .build())
        .create();
    DirectDeployer d = deployer();
    ApplyResult r =
        d.apply(
            release("dep-1:dev:c1").toBuilder()
                .addFiles(CLUSTER_ADMIN)
                .addPrevious(
                    AppliedObject.newBuilder()
                        .setTenant("acme")
                        .setApiVersion("v1")
                        .setKind("ConfigMap")
                        .setNamespace("demo")
                        .setName("old"))
                .build());
    assertThat(r.getOutcome()).isEqualTo(ApplyResult.Outcome.FAILED);
    assertThat(r.getError())
        .isEqualTo(
            "1 object was refused (outside the project's fence, or not managed by GitOpsHQ for"
                + " this project); nothing was applied or pruned");
    assertThat(r.getObjectsList())
        .extracting(o -> o.getAction() + " " + o.getObject().getKind() + ": " + o.getMessage())
        .containsExactly(
            "refused ClusterRoleBinding: ClusterRoleBinding web-admin: kind ClusterRoleBinding"
                + " is denied by the project's fence (rbac.authorization.k8s.io/*)",
            "skipped : 1 object was refused (outside the project's fence, or not managed by"
                + " GitOpsHQ for this project); nothing was applied or pruned; the release's"
                + " other objects (1) wait until it is fixed");
    assertThat(kube.client().rbac().clusterRoleBindings().withName("web-admin").get()).isNull();
    assertThat(kube.client().configMaps().inNamespace("demo").withName("web").get()).isNull();
    assertThat(kube.client().configMaps().inNamespace("demo").withName("old").get()).isNotNull();
  }

  @Test
  void kubeSystemIsRefusedUnlessTheFenceNamesIt() {
    DirectDeployer d = deployer();
    ApplyRelease unset =
        ApplyRelease.newBuilder()
            .setApplyId("dep-1:dev:c1")
            .setProject("shop")
            .setEnvironment("dev")
            .addFiles(SYSTEM_CONFIG)
            .build();
    ApplyResult refused = d.apply(unset);
    assertThat(refused.getOutcome()).isEqualTo(ApplyResult.Outcome.FAILED);
    assertThat(refused.getObjects(0).getAction()).isEqualTo("refused");
    assertThat(refused.getObjects(0).getMessage())
        .startsWith("ConfigMap kube-system/web: namespace kube-system is reserved");
    assertThat(kube.client().configMaps().inNamespace("kube-system").withName("web").get())
        .isNull();

    ApplyResult allowed =
        d.apply(
            unset.toBuilder()
                .setApplyId("dep-2:dev:c1")
                .setFence(TenantFences.DEFAULT.toBuilder().addAllowedNamespaces("kube-system"))
                .build());
    assertThat(allowed.getOutcome()).isEqualTo(ApplyResult.Outcome.SUCCEEDED);
    assertThat(allowed.getObjects(0).getAction()).isEqualTo("applied");
    assertThat(
            kube.client().configMaps().inNamespace("kube-system").withName("web").get().getData())
        .containsEntry("a", "b");
  }

  @Test
  void anExistingDeploymentWithoutTheLabelsIsRefusedAndLeftUntouched() {
    Deployment before =
        kube.client().apps().deployments().inNamespace("demo").withName("web").get();
    DirectDeployer d = deployer();
    ApplyResult r = d.apply(release("dep-1:dev:c1").toBuilder().addFiles(DEMO_DEPLOYMENT).build());
    assertThat(r.getOutcome()).isEqualTo(ApplyResult.Outcome.FAILED);
    assertThat(r.getObjectsList())
        .filteredOn(o -> o.getAction().equals("refused"))
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.getObject().getKind()).isEqualTo("Deployment");
              assertThat(o.getMessage())
                  .startsWith(
                      "Deployment demo/web exists and is not managed by GitOpsHQ for project"
                          + " shop; delete it or label it to hand it over (");
            });
    Deployment after = kube.client().apps().deployments().inNamespace("demo").withName("web").get();
    assertThat(after.getMetadata().getResourceVersion())
        .isEqualTo(before.getMetadata().getResourceVersion());
    assertThat(after.getSpec().getTemplate().getSpec().getContainers().getFirst().getImage())
        .isNotEqualTo("registry.example/takeover:1");
    assertThat(after.getMetadata().getLabels()).doesNotContainKey("gitopshq.dev/project");
    // Nothing else of the release was applied either.
    assertThat(kube.client().configMaps().inNamespace("demo").withName("web").get()).isNull();
  }

  @Test
  void anExistingObjectLabelledForThisDeliveryIsUpdated() {
    Map<String, String> labels = new HashMap<>(ApplyPlan.labels("shop", "dev", "acme"));
    labels.put("team", "web");
    kube.client()
        .configMaps()
        .inNamespace("demo")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("web")
                .withLabels(labels)
                .endMetadata()
                .addToData("a", "old")
                .build())
        .create();
    DirectDeployer d = deployer();
    ApplyResult r =
        d.apply(
            ApplyRelease.newBuilder()
                .setApplyId("dep-1:dev:c1")
                .setProject("shop")
                .setEnvironment("dev")
                .addFiles(
                    file(
                        "acme/web/configmap-web.yaml",
                        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n"
                            + "  namespace: demo\ndata:\n  a: new\n"))
                .build());
    assertThat(r.getOutcome()).isEqualTo(ApplyResult.Outcome.SUCCEEDED);
    assertThat(r.getObjects(0).getAction()).isEqualTo("applied");
    assertThat(kube.client().configMaps().inNamespace("demo").withName("web").get().getData())
        .containsEntry("a", "new");
  }
}
