package dev.gitopshq.hub.release;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.release.ClusterBindingRow;
import dev.gitopshq.agent.v1.ArgoApplication;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A binding's sync state comes from the Argo CD Application that delivers exactly it. */
class BindingSyncTest {
  static final String CLONE = "https://hub.example.com/git/acme/shop.git";
  static final String DEPLOYED = "4f2e6a8c0b1d3e5f7a9c1b3d5e7f9a1c3b5d7e9f";

  static ClusterBindingRow binding(String tenant, String environment, String deployed) {
    return new ClusterBindingRow(
        UUID.randomUUID(),
        "shop",
        UUID.randomUUID(),
        tenant,
        UUID.randomUUID(),
        environment,
        deployed,
        deployed == null ? null : 3,
        deployed == null ? null : Instant.now());
  }

  static ArgoApplication app(String repo, String branch, String path, String sync, String rev) {
    return ArgoApplication.newBuilder()
        .setNamespace("argocd")
        .setName("shop-" + path.replace('/', '-'))
        .setRepoUrl(repo)
        .setTargetRevision(branch)
        .setPath(path)
        .setSyncStatus(sync)
        .setSyncedRevision(rev)
        .build();
  }

  @Test
  void theApplicationOfThatBranchAndPathDecidesEvenThroughAnotherHostName() {
    var apps =
        new BindingSync.Applications(
            List.of(
                app(CLONE, "deploy/prod", "eu-1/acme", "OutOfSync", "old"),
                app(
                    "http://gitopshq-hub.gitopshq.svc:8080/git/acme/shop",
                    "deploy/staging",
                    "./eu-1/acme/",
                    "Synced",
                    DEPLOYED)),
            null);

    var s = BindingSync.state(CLONE, "eu-1", binding("acme", "staging", DEPLOYED), apps);
    assertThat(s.status()).isEqualTo("Synced");
    assertThat(s.application()).isEqualTo("argocd/shop-.-eu-1-acme-");
    assertThat(s.atLastDeployment()).isTrue();
    assertThat(s.reason()).isNull();

    var behind = BindingSync.state(CLONE, "eu-1", binding("acme", "prod", DEPLOYED), apps);
    assertThat(behind.status()).isEqualTo("OutOfSync");
    assertThat(behind.atLastDeployment()).isFalse();
  }

  @Test
  void anotherRepositoryTenantOrClusterDoesNotCountAndUnknownSaysWhy() {
    var apps =
        new BindingSync.Applications(
            List.of(
                app(
                    "https://git.example.com/acme/shop.git",
                    "deploy/staging",
                    "eu-1/acme",
                    "Synced",
                    DEPLOYED),
                app(CLONE, "deploy/staging", "eu-2/acme", "Synced", DEPLOYED),
                app(CLONE, "deploy/staging", "eu-1/globex", "Synced", DEPLOYED)),
            null);
    var s = BindingSync.state(CLONE, "eu-1", binding("acme", "staging", DEPLOYED), apps);
    assertThat(s.status()).isEqualTo("Unknown");
    assertThat(s.reason())
        .isEqualTo(
            "no Argo CD application or Flux kustomization tracks deploy/staging at path eu-1/acme");

    var away =
        BindingSync.state(
            CLONE,
            "eu-1",
            binding("acme", "staging", DEPLOYED),
            new BindingSync.Applications(List.of(), "the agent is not connected"));
    assertThat(away.status()).isEqualTo("Unknown");
    assertThat(away.reason()).isEqualTo("the agent is not connected");
  }

  @Test
  void nothingDeployedYetLeavesTheComparisonOpen() {
    var apps =
        new BindingSync.Applications(
            List.of(app(CLONE, "deploy/dev", "eu-1/acme", "Synced", "abc")), null);
    var s = BindingSync.state(CLONE, "eu-1", binding("acme", "dev", null), apps);
    assertThat(s.status()).isEqualTo("Synced");
    assertThat(s.atLastDeployment()).isNull();
  }

  @Test
  void aFluxKustomizationDeliversWhenNoApplicationDoes() {
    var flux =
        dev.gitopshq.agent.v1.FluxKustomization.newBuilder()
            .setNamespace("flux-system")
            .setName("shop-staging")
            .setRepoUrl("ssh://git@hub.internal/git/acme/shop.git")
            .setBranch("deploy/staging")
            .setPath("./eu-1/acme")
            .setReady("True")
            .setAppliedRevision("deploy/staging@sha1:" + DEPLOYED)
            .build();
    var apps = new BindingSync.Applications(List.of(), List.of(flux), null);
    var s = BindingSync.state(CLONE, "eu-1", binding("acme", "staging", DEPLOYED), apps);
    assertThat(s.status()).isEqualTo("Synced");
    assertThat(s.application()).isEqualTo("flux:flux-system/shop-staging");
    assertThat(s.syncedRevision()).isEqualTo(DEPLOYED);
    assertThat(s.atLastDeployment()).isTrue();

    var failing =
        new BindingSync.Applications(
            List.of(),
            List.of(
                flux.toBuilder()
                    .setReady("False")
                    .setReadyMessage("kustomize build failed")
                    .build()),
            null);
    var f = BindingSync.state(CLONE, "eu-1", binding("acme", "staging", DEPLOYED), failing);
    assertThat(f.status()).isEqualTo("OutOfSync");
    assertThat(f.reason()).isEqualTo("kustomize build failed");
  }
}
