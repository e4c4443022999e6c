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
        deployed == null ? null : Instant.now(),
        "argocd",
        null,
        null,
        null);
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

  static ClusterBindingRow direct(String deployed, String status, String commit, String error) {
    var b = binding("acme", "dev", deployed);
    return new ClusterBindingRow(
        b.projectId(),
        b.project(),
        b.tenantId(),
        b.tenant(),
        b.environmentId(),
        b.environment(),
        b.deployedCommit(),
        b.deployedReleaseNumber(),
        b.deployedAt(),
        "direct",
        status,
        commit,
        error);
  }

  @Test
  void aDirectBindingIsWhatTheAgentsNewestApplyDidWhateverArgoCdOrFluxSay() {
    // An Application on that branch and path does not count: nothing watches it in direct mode.
    var apps =
        new BindingSync.Applications(
            List.of(app(CLONE, "deploy/dev", "eu-1/acme", "OutOfSync", "old")), null);
    var ok = BindingSync.state(CLONE, "eu-1", direct(DEPLOYED, "succeeded", DEPLOYED, null), apps);
    assertThat(ok.status()).isEqualTo("Synced");
    assertThat(ok.application()).isEqualTo("direct apply");
    assertThat(ok.syncedRevision()).isEqualTo(DEPLOYED);
    assertThat(ok.atLastDeployment()).isTrue();

    var older = BindingSync.state(CLONE, "eu-1", direct(DEPLOYED, "succeeded", "0ld", null), apps);
    assertThat(older.status()).isEqualTo("Synced");
    assertThat(older.atLastDeployment()).isFalse();

    var failed =
        BindingSync.state(
            CLONE, "eu-1", direct(DEPLOYED, "failed", DEPLOYED, "web: refused by the fence"), apps);
    assertThat(failed.status()).isEqualTo("OutOfSync");
    assertThat(failed.reason())
        .isEqualTo("the newest direct apply failed: web: refused by the fence");

    var running = BindingSync.state(CLONE, "eu-1", direct(DEPLOYED, "sent", DEPLOYED, null), apps);
    assertThat(running.status()).isEqualTo("OutOfSync");
    assertThat(running.reason()).isEqualTo("the agent is applying " + DEPLOYED.substring(0, 12));

    // Even when the agent cannot list its adapters: a direct binding does not need them.
    var none =
        BindingSync.state(
            CLONE,
            "eu-1",
            direct(null, null, null, null),
            new BindingSync.Applications(List.of(), "the agent is not connected"));
    assertThat(none.status()).isEqualTo("Unknown");
    assertThat(none.reason()).isEqualTo("no direct apply of dev has run on this cluster");
    assertThat(BindingSync.allDirect(List.of(direct(null, null, null, null)))).isTrue();
    assertThat(
            BindingSync.allDirect(
                List.of(direct(null, null, null, null), binding("a", "dev", null))))
        .isFalse();
  }
}
