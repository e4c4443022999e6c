package dev.gitopshq.agent.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.agent.v1.ArgoApplication;
import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.ListApplications;
import dev.gitopshq.testkube.TestKube;
import org.junit.jupiter.api.Test;

/** The Argo CD view reads what Argo CD wrote on its Application objects. */
class ArgoApplicationsReaderTest {
  @Test
  void listsTheApplicationsWithSyncHealthSourceDestinationAndHistory() {
    try (TestKube kube = TestKube.start().seedDemo()) {
      ArgoApplications apps =
          new ArgoApplicationsReader(kube::client, "https://argocd.example.com")
              .list(ListApplications.newBuilder().setRequestId("r1").build());

      assertThat(apps.getRequestId()).isEqualTo("r1");
      assertThat(apps.getServerUrl()).isEqualTo("https://argocd.example.com");
      assertThat(apps.getError()).isEmpty();
      ArgoApplication demo =
          apps.getApplicationsList().stream()
              .filter(a -> a.getName().equals(TestKube.DEMO_APPLICATION))
              .findFirst()
              .orElseThrow();
      assertThat(demo.getNamespace()).isEqualTo(TestKube.ARGOCD_NAMESPACE);
      assertThat(demo.getProject()).isEqualTo("default");
      assertThat(demo.getSyncStatus()).isEqualTo("Synced");
      assertThat(demo.getHealthStatus()).isEqualTo("Healthy");
      assertThat(demo.getRepoUrl()).isEqualTo("https://git.example.com/gitopshq/demo-deploy.git");
      assertThat(demo.getPath()).isEqualTo("environments/demo/web");
      assertThat(demo.getTargetRevision()).isEqualTo("main");
      assertThat(demo.getDestinationNamespace()).isEqualTo(TestKube.DEMO_NAMESPACE);
      assertThat(demo.getSyncedRevision()).startsWith("4f2e6a8c");
      assertThat(demo.getHistoryList()).hasSize(2);
      assertThat(demo.getHistory(0).getId()).isZero();
      assertThat(demo.getHistory(0).getRevision()).startsWith("9a1c3e5b");
      assertThat(demo.getHistory(0).hasDeployedAt()).isTrue();
    }
  }

  @Test
  void fluxKustomizationsComeWithTheirGitRepositoryAndReadyCondition() {
    try (TestKube kube = TestKube.start()) {
      var repo = new io.fabric8.kubernetes.api.model.GenericKubernetesResource();
      repo.setApiVersion("source.toolkit.fluxcd.io/v1");
      repo.setKind("GitRepository");
      repo.setMetadata(
          new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
              .withName("shop")
              .withNamespace("flux-system")
              .build());
      repo.setAdditionalProperties(
          new java.util.HashMap<>(
              java.util.Map.of(
                  "spec",
                  java.util.Map.of(
                      "url",
                      "https://hub.example.com/git/acme/shop.git",
                      "ref",
                      java.util.Map.of("branch", "deploy/dev")))));
      kube.client()
          .genericKubernetesResources(ArgoApplicationsReader.GIT_REPOSITORIES)
          .inNamespace("flux-system")
          .resource(repo)
          .create();
      var ks = new io.fabric8.kubernetes.api.model.GenericKubernetesResource();
      ks.setApiVersion("kustomize.toolkit.fluxcd.io/v1");
      ks.setKind("Kustomization");
      ks.setMetadata(
          new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
              .withName("shop-dev")
              .withNamespace("flux-system")
              .build());
      ks.setAdditionalProperties(
          new java.util.HashMap<>(
              java.util.Map.of(
                  "spec",
                  java.util.Map.of(
                      "path",
                      "./eu-1/acme",
                      "sourceRef",
                      java.util.Map.of("kind", "GitRepository", "name", "shop")),
                  "status",
                  java.util.Map.of(
                      "lastAppliedRevision",
                      "deploy/dev@sha1:abc123",
                      "conditions",
                      java.util.List.of(
                          java.util.Map.of(
                              "type", "Ready", "status", "True", "message", "Applied"))))));
      kube.client()
          .genericKubernetesResources(ArgoApplicationsReader.KUSTOMIZATIONS)
          .inNamespace("flux-system")
          .resource(ks)
          .create();

      ArgoApplications apps =
          new ArgoApplicationsReader(kube::client, "")
              .list(ListApplications.newBuilder().setRequestId("r2").build(), false, true);

      assertThat(apps.getApplicationsList()).isEmpty();
      assertThat(apps.getKustomizationsList())
          .singleElement()
          .satisfies(
              k -> {
                assertThat(k.getName()).isEqualTo("shop-dev");
                assertThat(k.getRepoUrl()).isEqualTo("https://hub.example.com/git/acme/shop.git");
                assertThat(k.getBranch()).isEqualTo("deploy/dev");
                assertThat(k.getPath()).isEqualTo("./eu-1/acme");
                assertThat(k.getReady()).isEqualTo("True");
                assertThat(k.getAppliedRevision()).isEqualTo("deploy/dev@sha1:abc123");
              });
    }
  }
}
