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
}
