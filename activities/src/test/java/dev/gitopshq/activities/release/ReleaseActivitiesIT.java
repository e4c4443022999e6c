package dev.gitopshq.activities.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.audit.AuditMapper;
import dev.gitopshq.activities.delivery.EnvironmentMapper;
import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.delivery.ProjectTenantMapper;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import dev.gitopshq.activities.notify.WebhookNotifier;
import dev.gitopshq.activities.store.TestSchema;
import dev.gitopshq.workflows.release.DeploymentStatus;
import dev.gitopshq.workflows.release.ReleaseFailures;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The release activities' store and repository steps on the real PostgreSQL and JGit: timeline
 * events keyed by their sequence number, the source of a release resolved from its generations
 * (waiting, failing for good, or taking the first delivery that includes the revision), and deploy
 * commits that a retry does not repeat. The OPA steps run in the hub's end-to-end test.
 */
class ReleaseActivitiesIT {
  static final String SCHEMA = "release_activities_it";
  static TestSchema schema;
  static TransactionTemplate tx;

  @TempDir Path dir;
  ProjectRepos repos;
  UUID org;
  UUID project;
  ReleaseActivitiesImpl activities;

  @BeforeAll
  static void database() throws Exception {
    schema =
        TestSchema.create(
            SCHEMA,
            ReleaseMapper.class,
            DeploymentMapper.class,
            DeliveryMapper.class,
            ProjectMapper.class,
            EnvironmentMapper.class,
            ProjectTenantMapper.class,
            dev.gitopshq.activities.notify.NotificationSettingsMapper.class,
            AuditMapper.class,
            dev.gitopshq.activities.drift.DriftMapper.class,
            RuntimeMapper.class);
    tx = schema.tx();
  }

  @AfterAll
  static void close() {
    if (schema != null) {
      schema.close();
    }
  }

  @BeforeEach
  void project() throws Exception {
    org = UUID.randomUUID();
    project = UUID.randomUUID();
    sql(
        "insert into organizations (id, slug, name, created_at) values (?, ?, 'Release IT', now())",
        org,
        "r" + org.toString().substring(0, 8));
    sql(
        "insert into projects (id, org_id, name, created_by, created_at, updated_at)"
            + " values (?, ?, 'shop', 'test', now(), now())",
        project,
        org);
    int position = 1;
    for (String env : List.of("staging", "production")) {
      UUID id = UUID.randomUUID();
      sql(
          "insert into environments (id, org_id, name, position, created_at) values (?, ?, ?, ?, now())",
          id,
          org,
          env,
          position++);
      sql(
          "insert into project_environments (org_id, project_id, environment_id, namespace_pattern)"
              + " values (?, ?, ?, 'x')",
          org,
          project,
          id);
    }
    for (String tenant : List.of("acme", "globex")) {
      UUID id = UUID.randomUUID();
      sql(
          "insert into tenants (id, org_id, name, created_at) values (?, ?, ?, now())",
          id,
          org,
          tenant);
      sql(
          "insert into project_tenants (org_id, project_id, tenant_id) values (?, ?, ?)",
          org,
          project,
          id);
    }
    repos = new ProjectRepos(dir.resolve("repos"));
    repos.create(org, project);
    Clock clock = Clock.systemUTC();
    activities =
        new ReleaseActivitiesImpl(
            schema.mapper(ReleaseMapper.class),
            schema.mapper(DeploymentMapper.class),
            schema.mapper(DeliveryMapper.class),
            schema.mapper(ProjectMapper.class),
            schema.mapper(EnvironmentMapper.class),
            schema.mapper(ProjectTenantMapper.class),
            null,
            null,
            new DeployWriter(repos),
            new ConfigHistory(repos),
            new WebhookNotifier(
                new dev.gitopshq.activities.notify.NotificationTargets(
                    schema.mapper(dev.gitopshq.activities.notify.NotificationSettingsMapper.class),
                    new dev.gitopshq.activities.crypto.SecretBox(
                        dev.gitopshq.activities.crypto.SecretBox.newKey()),
                    java.util.Optional::empty,
                    null,
                    null,
                    o -> false,
                    clock),
                clock),
            new AuditLog(schema.mapper(AuditMapper.class), clock),
            tx,
            clock);
  }

  @AfterEach
  void closeRepos() {
    repos.close();
  }

  // ---- timeline ---------------------------------------------------------------------------

  @Test
  void aRetriedTransitionWritesOneEventAndOneAuditEntry() throws Exception {
    UUID release = release(1, 3);
    UUID deployment = deployment(release, "deploy", "staging");

    activities.transition(
        org.toString(), deployment.toString(), 1, DeploymentStatus.pending, "ada", "requested");
    activities.transition(
        org.toString(), deployment.toString(), 1, DeploymentStatus.pending, "ada", "requested");
    activities.transition(
        org.toString(), deployment.toString(), 2, DeploymentStatus.deployed, "system", "deployed");

    assertThat(count("select count(*) from deployment_events where deployment_id = ?", deployment))
        .isEqualTo(2);
    assertThat(
            count(
                "select count(*) from audit_log where org_id = ? and action = 'deployment.pending'",
                org))
        .isEqualTo(1);
    DeploymentRow d = schema.mapper(DeploymentMapper.class).findById(org, deployment).orElseThrow();
    assertThat(d.status()).isEqualTo("deployed");
    assertThat(d.finishedAt()).isNotNull();
    assertThat(d.environments()).containsExactly("staging");
  }

  // ---- source -----------------------------------------------------------------------------

  @Test
  void theSourceWaitsWhileTheRevisionIsBeingGenerated() throws Exception {
    UUID release = release(1, 3);
    assertThatThrownBy(() -> activities.resolveSource(org.toString(), release.toString()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("revision 3");
    generation(3, "rendering", null, "");
    assertThatThrownBy(() -> activities.resolveSource(org.toString(), release.toString()))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aFailedGenerationFailsTheSourceForGoodUnlessANewerOneIsUnderWay() throws Exception {
    UUID release = release(1, 3);
    generation(3, "failed", null, "web for acme in staging: template error");
    generation(4, "rendering", null, "");
    assertThatThrownBy(() -> activities.resolveSource(org.toString(), release.toString()))
        .isInstanceOf(IllegalStateException.class);

    sql(
        "update generations set status = 'failed', detail = 'again' where project_id = ? and revision = 4",
        project);
    assertThatThrownBy(() -> activities.resolveSource(org.toString(), release.toString()))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> {
              assertThat(f.getType()).isEqualTo(ReleaseFailures.NO_DELIVERY);
              assertThat(f.isNonRetryable()).isTrue();
              assertThat(f.getOriginalMessage())
                  .isEqualTo(
                      "the delivery generation of revision 3 failed: web for acme in staging: template error");
            });
  }

  @Test
  void theSourceIsTheFirstDeliveryThatIncludesTheRevisionAndStaysSo() throws Exception {
    UUID release = release(1, 3);
    generation(3, "superseded", null, "");
    generation(4, "committed", "4444444444444444444444444444444444444444", "");
    generation(5, "unchanged", "5555555555555555555555555555555555555555", "");
    sql("update projects set generated_revision = 5 where id = ?", project);

    assertThat(activities.resolveSource(org.toString(), release.toString()))
        .isEqualTo("4444444444444444444444444444444444444444");
    sql(
        "update generations set commit = '6666666666666666666666666666666666666666' where project_id = ? and revision = 4",
        project);
    assertThat(activities.resolveSource(org.toString(), release.toString()))
        .isEqualTo("4444444444444444444444444444444444444444");
    assertThat(
            count(
                "select count(*) from audit_log where org_id = ? and action = 'release.source_resolved'",
                org))
        .isEqualTo(1);
  }

  // ---- commits ----------------------------------------------------------------------------

  @Test
  void aRetriedApplyFindsItsCommitAndRecordsTheDeliveries() throws Exception {
    String source =
        render(
            Map.of(
                "rendered/staging/c1/acme/web/deployment-web.yaml", "acme",
                "rendered/staging/c1/globex/web/deployment-web.yaml", "globex"));
    UUID release = release(1, 3);
    sql("update releases set source_commit = ? where id = ?", source, release);
    UUID deployment = deployment(release, "deploy", "staging");

    Map<String, String> first = activities.apply(org.toString(), deployment.toString());
    Map<String, String> again = activities.apply(org.toString(), deployment.toString());

    assertThat(again).isEqualTo(first).containsOnlyKeys("staging");
    assertThat(repos.log(org, project, "deploy/staging", 10)).hasSize(1);
    assertThat(repos.commitInfo(org, project, first.get("staging")).orElseThrow().message())
        .startsWith("Deploy release #1 of shop to staging\n");
    assertThat(
            count(
                "select count(*) from deliveries where project_id = ? and deployed_release = ? and deployed_commit = ?",
                project,
                release,
                first.get("staging")))
        .isEqualTo(2);
    assertThat(
            schema.mapper(DeploymentMapper.class).findById(org, deployment).orElseThrow().commits())
        .isEqualTo(first);
  }

  @Test
  void onlyVerifyingEnvironmentsFluxAndArgoClustersAreWatchedAndTheFirstVerifiedTimeIsKept()
      throws Exception {
    for (String[] c :
        List.of(
            new String[] {"eu-1", "staging", "flux"},
            new String[] {"us-1", "staging", "direct"},
            new String[] {"ap-1", "production", "argocd"})) {
      UUID cluster = UUID.randomUUID();
      sql(
          "insert into clusters (id, org_id, name, created_by, created_at, updated_at)"
              + " values (?, ?, ?, 'test', now(), now())",
          cluster,
          org,
          c[0]);
      sql(
          "insert into project_environment_clusters (org_id, project_id, environment_id,"
              + " cluster_id, delivery_mode) select org_id, project_id, environment_id, ?, ?"
              + " from project_environments where project_id = ? and environment_id ="
              + " (select id from environments where org_id = ? and name = ?)",
          cluster,
          c[2],
          project,
          org,
          c[1]);
    }
    RuntimeMapper runtime = schema.mapper(RuntimeMapper.class);
    List<String> both = List.of("staging", "production");
    // No environment verifies yet: nothing is watched.
    assertThat(runtime.targets(org, project, both)).isEmpty();
    sql(
        "update environments set verify_timeout_s = 120 where org_id = ? and name = 'staging'",
        org);
    sql(
        "update environments set verify_timeout_s = 600 where org_id = ? and name = 'production'",
        org);
    assertThat(runtime.targets(org, project, both))
        .extracting(t -> t.cluster() + " " + t.mode() + " " + t.timeoutSeconds())
        .containsExactly("eu-1 flux 120", "ap-1 argocd 600");
    assertThat(runtime.targets(org, project, List.of("production")))
        .extracting(RuntimeTargetRow::cluster)
        .containsExactly("ap-1");
    // Another organization's project reads nothing.
    assertThat(runtime.targets(UUID.randomUUID(), project, both)).isEmpty();

    UUID deployment = deployment(release(1, 3), "deploy", "staging");
    RuntimeTargetRow eu = runtime.targets(org, project, List.of("staging")).getFirst();
    Instant first = Instant.parse("2026-11-27T12:00:00Z");
    runtime.record(
        new DeploymentClusterRow(
            org,
            deployment,
            "staging",
            eu.clusterId(),
            "eu-1",
            "flux",
            true,
            "flux:flux-system/shop-acme",
            "abc",
            "Ready True",
            "",
            first,
            first));
    runtime.record(
        new DeploymentClusterRow(
            org,
            deployment,
            "staging",
            eu.clusterId(),
            "eu-1",
            "flux",
            true,
            "flux:flux-system/shop-acme",
            "abc",
            "Ready True",
            "",
            first.plusSeconds(9),
            first.plusSeconds(9)));
    List<DeploymentClusterRow> rows = runtime.forDeployment(org, deployment);
    assertThat(rows).hasSize(1);
    assertThat(rows.getFirst().observedAt()).isEqualTo(first.plusSeconds(9));
    assertThat(rows.getFirst().verifiedAt()).isEqualTo(first);
    assertThat(runtime.forDeployment(UUID.randomUUID(), deployment)).isEmpty();
  }

  @Test
  void aCommittedEnvironmentAsksForADriftCheckOfEveryClusterItDeliversTo() throws Exception {
    UUID cluster = UUID.randomUUID();
    sql(
        "insert into clusters (id, org_id, name, created_by, created_at, updated_at)"
            + " values (?, ?, 'c1', 'test', now(), now())",
        cluster,
        org);
    sql(
        "insert into project_environment_clusters (org_id, project_id, environment_id, cluster_id)"
            + " select org_id, project_id, environment_id, ? from project_environments pe"
            + " where project_id = ? and environment_id ="
            + " (select id from environments where org_id = ? and name = 'staging')",
        cluster,
        project,
        org);
    dev.gitopshq.activities.drift.DriftStore drift =
        new dev.gitopshq.activities.drift.DriftStore(
            schema.mapper(dev.gitopshq.activities.drift.DriftMapper.class),
            new AuditLog(schema.mapper(AuditMapper.class), Clock.systemUTC()),
            tx,
            Clock.systemUTC());
    activities.onDeployed(
        (o, p, e, d) ->
            drift.deployed(o, p, e, "deployment " + d, java.time.Duration.ofMinutes(2)));
    String source = render(Map.of("rendered/staging/c1/acme/web/deployment-web.yaml", "acme"));
    UUID release = release(1, 3);
    sql("update releases set source_commit = ? where id = ?", source, release);
    UUID deployment = deployment(release, "deploy", "staging");

    activities.apply(org.toString(), deployment.toString());

    assertThat(
            count(
                "select count(*) from drift_checks where org_id = ? and cluster_id = ?"
                    + " and trigger = 'deployment' and status = 'pending'"
                    + " and not_before >= requested_at + interval '119 seconds'"
                    + " and requested_by = ?",
                org,
                cluster,
                "deployment " + deployment))
        .isEqualTo(1);
  }

  @Test
  void anEnvironmentWithoutRenderedManifestsFailsForGood() throws Exception {
    String source = render(Map.of("rendered/staging/c1/acme/web/deployment-web.yaml", "acme"));
    UUID release = release(1, 3);
    sql("update releases set source_commit = ? where id = ?", source, release);
    UUID deployment = deployment(release, "promote", "production");

    assertThatThrownBy(() -> activities.apply(org.toString(), deployment.toString()))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> {
              assertThat(f.isNonRetryable()).isTrue();
              assertThat(f.getOriginalMessage())
                  .isEqualTo(
                      "release #1 has no rendered manifests for production: bind a cluster to it");
            });
    assertThat(repos.head(org, project, "deploy/production")).isEmpty();
  }

  // ---- helpers ------------------------------------------------------------------------------

  String render(Map<String, String> files) {
    List<TreeEdit> edits = new ArrayList<>();
    files.forEach((p, c) -> edits.add(TreeEdit.file(p, c.getBytes(StandardCharsets.UTF_8))));
    return repos
        .commit(org, project, ProjectRepos.MAIN, null, edits, Ident.HUB, "render")
        .commitName();
  }

  UUID release(int number, long revision) throws Exception {
    UUID id = UUID.randomUUID();
    sql(
        "insert into releases (id, org_id, project_id, number, kind, config_revision, requested_by,"
            + " requester_name, created_at) values (?, ?, ?, ?, 'standard', ?, 'm1', 'Ada', now())",
        id,
        org,
        project,
        number,
        revision);
    return id;
  }

  UUID deployment(UUID release, String action, String env) throws Exception {
    UUID id = UUID.randomUUID();
    sql(
        "insert into deployments (id, org_id, project_id, release_id, action, environment_ids, status,"
            + " requested_by, requester_name, created_at, updated_at)"
            + " values (?, ?, ?, ?, ?, array[(select id from environments where org_id = ? and name = ?)], 'pending',"
            + " 'm1', 'Ada', now(), now())",
        id,
        org,
        project,
        release,
        action,
        org,
        env);
    return id;
  }

  void generation(long revision, String status, String commit, String detail) throws Exception {
    sql(
        "insert into generations (id, org_id, project_id, revision, config_commit, status, commit, trigger,"
            + " actor, detail, started_at) values (?, ?, ?, ?, 'c', ?, ?, 'config', 'test', ?, now())",
        UUID.randomUUID(),
        org,
        project,
        revision,
        status,
        commit,
        detail);
  }

  void sql(String statement, Object... args) throws Exception {
    schema.exec(statement, args);
  }

  long count(String query, Object... args) throws Exception {
    return schema.count(query, args);
  }
}
