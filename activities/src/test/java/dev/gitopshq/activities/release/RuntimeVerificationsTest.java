package dev.gitopshq.activities.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import dev.gitopshq.activities.org.OrgMapper;
import dev.gitopshq.activities.org.OrgRow;
import dev.gitopshq.agent.v1.ArgoApplication;
import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.FluxKustomization;
import dev.gitopshq.workflows.release.RuntimeObservation;
import dev.gitopshq.workflows.release.RuntimeTarget;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A deployment is verified on a cluster only when its adapter runs the deploy commit for every
 * tenant directory of the cluster and reports it healthy; otherwise the watch ends at its deadline
 * with the adapter's own words.
 */
class RuntimeVerificationsTest {
  static final UUID ORG = UUID.fromString("00000000-0000-0000-0000-000000000001");
  static final UUID PROJECT = UUID.fromString("00000000-0000-0000-0000-0000000000a1");
  static final UUID DEPLOYMENT = UUID.fromString("00000000-0000-0000-0000-0000000000d1");
  static final UUID CLUSTER = UUID.fromString("00000000-0000-0000-0000-0000000000c1");
  static final String REPO = "http://hub.example:8080/git/acme/shop.git";

  @TempDir Path root;
  ProjectRepos repos;
  String commit;
  final List<DeploymentClusterRow> recorded = new CopyOnWriteArrayList<>();
  final List<dev.gitopshq.agent.v1.RequestReconcile> reconciles = new CopyOnWriteArrayList<>();
  final AtomicReference<Function<Integer, ArgoApplications>> answers = new AtomicReference<>();
  final List<String> heartbeats = new CopyOnWriteArrayList<>();
  boolean notHere;
  MutableClock clock;

  @BeforeEach
  void setUp() {
    repos = new ProjectRepos(root);
    repos.create(ORG, PROJECT);
    List<TreeEdit> edits = new ArrayList<>();
    for (String p :
        List.of("eu-1/acme/web/deployment-web.yaml", "eu-1/globex/web/deployment-web.yaml")) {
      edits.add(TreeEdit.file(p, "kind: Deployment\n".getBytes(StandardCharsets.UTF_8)));
    }
    commit =
        repos
            .commit(ORG, PROJECT, "deploy/production", null, edits, Ident.HUB, "deploy")
            .commitName();
    clock = new MutableClock(Instant.parse("2026-11-27T12:00:00Z"));
  }

  @AfterEach
  void tearDown() {
    repos.close();
  }

  static FluxKustomization flux(String tenant, String revision, String ready, String message) {
    return FluxKustomization.newBuilder()
        .setNamespace("flux-system")
        .setName("shop-" + tenant)
        .setRepoUrl("http://gitopshq.gitopshq-system.svc:8080/git/acme/shop.git")
        .setBranch("deploy/production")
        .setPath("./eu-1/" + tenant)
        .setReady(ready)
        .setReadyMessage(message)
        .setAppliedRevision(revision.isEmpty() ? "" : "deploy/production@sha1:" + revision)
        .build();
  }

  RuntimeVerifications verifications() {
    int[] reads = {0};
    AgentGatewayPort gateway =
        proxy(
            AgentGatewayPort.class,
            Map.of(
                "listApplications",
                args ->
                    notHere
                        ? Optional.empty()
                        : Optional.of(
                            CompletableFuture.completedFuture(answers.get().apply(reads[0]++))),
                "requestReconcile",
                args -> {
                  reconciles.add((dev.gitopshq.agent.v1.RequestReconcile) args[2]);
                  return notHere
                      ? Optional.empty()
                      : Optional.of(
                          CompletableFuture.completedFuture(
                              dev.gitopshq.agent.v1.ReconcileRequested.getDefaultInstance()));
                }));
    RuntimeMapper runtime =
        proxy(
            RuntimeMapper.class,
            Map.of(
                "record",
                args -> {
                  recorded.add((DeploymentClusterRow) args[0]);
                  return null;
                }));
    DeploymentRow deployment =
        new DeploymentRow(
            DEPLOYMENT,
            ORG,
            PROJECT,
            UUID.randomUUID(),
            "deploy",
            List.of(),
            List.of("production"),
            "deploying",
            "",
            null,
            null,
            null,
            null,
            false,
            "",
            Map.of("production", commit),
            "alice",
            "Alice",
            clock.instant(),
            clock.instant(),
            null,
            null);
    DeploymentMapper deployments =
        proxy(DeploymentMapper.class, Map.of("findById", args -> Optional.of(deployment)));
    ProjectMapper projects =
        proxy(
            ProjectMapper.class,
            Map.of(
                "findById",
                args ->
                    Optional.of(
                        new ProjectRow(
                            PROJECT,
                            ORG,
                            "shop",
                            "",
                            3,
                            3,
                            false,
                            "alice",
                            clock.instant(),
                            clock.instant()))));
    OrgMapper orgs =
        proxy(
            OrgMapper.class,
            Map.of(
                "findById",
                args -> Optional.of(new OrgRow(ORG, "acme", "Acme", "team", clock.instant()))));
    return new RuntimeVerifications(
        runtime,
        deployments,
        projects,
        orgs,
        repos,
        gateway,
        clock,
        heartbeats::add,
        Duration.ZERO) {
      @Override
      void pause(Duration d) {
        clock.advance(Duration.ofSeconds(1));
      }
    };
  }

  RuntimeObservation verify(RuntimeVerifications v, long timeoutSeconds) {
    return v.verify(
        ORG.toString(),
        DEPLOYMENT.toString(),
        new RuntimeTarget("production", CLUSTER.toString(), "eu-1", "flux", timeoutSeconds),
        commit,
        clock.millis() + timeoutSeconds * 1000);
  }

  @Test
  void aClusterIsVerifiedOnceEveryTenantsKustomizationRunsTheCommitAndIsReady() {
    // Flux applies the first tenant at once and the second after three reads.
    answers.set(
        read ->
            ArgoApplications.newBuilder()
                .addKustomizations(flux("acme", commit, "True", "Applied revision"))
                .addKustomizations(
                    read < 3
                        ? flux("globex", "0ld0ld0ld0ld", "Unknown", "Reconciliation in progress")
                        : flux("globex", commit, "True", "Applied revision"))
                .build());
    RuntimeObservation o = verify(verifications(), 300);

    assertThat(o.verified()).isTrue();
    // The adapter was asked to fetch the branch at once, before the first reading.
    assertThat(reconciles)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getBranch()).isEqualTo("deploy/production");
              assertThat(r.getRepoUrl()).endsWith("/shop.git");
            });
    assertThat(o.deliverer()).isEqualTo("flux:flux-system/shop-acme, flux:flux-system/shop-globex");
    assertThat(o.revision()).isEqualTo(commit);
    assertThat(o.health()).isEqualTo("eu-1/acme Ready True; eu-1/globex Ready True");
    assertThat(heartbeats).hasSize(3);
    assertThat(heartbeats.getFirst())
        .isEqualTo(
            "flux:flux-system/shop-globex runs 0ld0ld0ld0ld, not "
                + commit.substring(0, 12)
                + " (Ready Unknown: Reconciliation in progress)");
    assertThat(recorded).hasSize(1);
    assertThat(recorded.getFirst().verified()).isTrue();
    assertThat(recorded.getFirst().verifiedAt()).isEqualTo(clock.instant());
  }

  @Test
  void anAppliedKustomizationThatDoesNotWaitIsVerifiedOnlyOnceTheAgentFindsItsWorkloadsRolledOut() {
    // The hub's own Kustomizations do not wait for health (Flux polls it every 5 s): Ready means
    // applied, and the agent reports the rollout of what was applied.
    answers.set(
        read ->
            ArgoApplications.newBuilder()
                .addKustomizations(
                    flux("acme", commit, "True", "Applied revision").toBuilder()
                        .setWorkloads(read < 2 ? "progressing" : "healthy")
                        .setWorkloadsMessage(
                            read < 2 ? "Deployment acme-production/web: 1 of 2 updated" : "")
                        .build())
                .addKustomizations(
                    flux("globex", commit, "True", "Applied revision").toBuilder()
                        .setWorkloads("healthy")
                        .build())
                .build());
    RuntimeObservation o = verify(verifications(), 300);

    assertThat(o.verified()).isTrue();
    assertThat(o.health())
        .isEqualTo(
            "eu-1/acme Ready True, workloads healthy; eu-1/globex Ready True, workloads healthy");
    assertThat(heartbeats).hasSize(2);
    assertThat(heartbeats.getFirst())
        .isEqualTo(
            "flux:flux-system/shop-acme is not healthy: Ready True, workloads progressing:"
                + " Deployment acme-production/web: 1 of 2 updated");
  }

  @Test
  void aKustomizationThatFailsToApplyLeavesTheClusterUnverifiedAtTheDeadlineWithFluxsWords() {
    answers.set(
        read ->
            ArgoApplications.newBuilder()
                .addKustomizations(flux("acme", commit, "True", "Applied revision"))
                .addKustomizations(
                    flux(
                        "globex",
                        "",
                        "False",
                        "Deployment/globex-production/web dry-run failed: field is immutable"))
                .build());
    RuntimeObservation o = verify(verifications(), 10);

    assertThat(o.verified()).isFalse();
    assertThat(o.reason())
        .isEqualTo(
            "flux:flux-system/shop-globex runs no revision yet, not "
                + commit.substring(0, 12)
                + " (Ready False: Deployment/globex-production/web dry-run failed: field is"
                + " immutable) (after 10 s)");
    assertThat(recorded.getFirst().verified()).isFalse();
    assertThat(recorded.getFirst().verifiedAt()).isNull();
  }

  @Test
  void aTenantNoAdapterDeliversIsNamed() {
    answers.set(
        read ->
            ArgoApplications.newBuilder()
                .addKustomizations(flux("acme", commit, "True", "Applied revision"))
                .build());
    RuntimeObservation o = verify(verifications(), 5);

    assertThat(o.verified()).isFalse();
    assertThat(o.reason())
        .isEqualTo(
            "no Flux Kustomization on eu-1 delivers deploy/production at eu-1/globex (after 5 s)");
  }

  @Test
  void anArgoApplicationMustBeSyncedAtTheCommitAndHealthy() {
    answers.set(
        read ->
            ArgoApplications.newBuilder()
                .addApplications(argo("acme", commit, "Synced", "Healthy"))
                .addApplications(argo("globex", commit, "Synced", "Degraded"))
                .build());
    RuntimeObservation o = verify(verifications(), 3);

    assertThat(o.verified()).isFalse();
    assertThat(o.reason())
        .isEqualTo(
            "argocd/shop-globex is not healthy: Synced, Degraded: Back-off pulling image"
                + " (after 3 s)");
  }

  @Test
  void aReplicaThatHoldsNoStreamOfTheClusterGivesTheWatchBackForARetry() {
    notHere = true;
    answers.set(read -> ArgoApplications.getDefaultInstance());

    assertThatThrownBy(() -> verify(verifications(), 300))
        .hasMessageContaining("holds no stream of cluster eu-1");
    assertThat(recorded).isEmpty();
  }

  static ArgoApplication argo(String tenant, String revision, String sync, String health) {
    return ArgoApplication.newBuilder()
        .setNamespace("argocd")
        .setName("shop-" + tenant)
        .setRepoUrl(REPO)
        .setTargetRevision("deploy/production")
        .setPath("eu-1/" + tenant)
        .setSyncStatus(sync)
        .setHealthStatus(health)
        .setHealthMessage(health.equals("Healthy") ? "" : "Back-off pulling image")
        .setSyncedRevision(revision)
        .build();
  }

  /** An interface whose named methods answer as given; any other call fails the test. */
  @SuppressWarnings("unchecked")
  static <T> T proxy(Class<T> type, Map<String, Function<Object[], Object>> methods) {
    return (T)
        Proxy.newProxyInstance(
            type.getClassLoader(),
            new Class<?>[] {type},
            (p, m, args) -> {
              Function<Object[], Object> f = methods.get(m.getName());
              if (f == null) {
                throw new AssertionError("unexpected call " + m.getName());
              }
              return f.apply(args);
            });
  }

  static final class MutableClock extends Clock {
    private Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
