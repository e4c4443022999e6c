package dev.gitopshq.activities.generation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.audit.AuditMapper;
import dev.gitopshq.activities.delivery.ChartMapper;
import dev.gitopshq.activities.delivery.ProjectSnapshot;
import dev.gitopshq.activities.delivery.ProjectSnapshot.ClusterTarget;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Environment;
import dev.gitopshq.activities.delivery.ProjectSnapshot.TenantValues;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Variable;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Workload;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.render.ChartArchive;
import dev.gitopshq.activities.render.Renderer;
import dev.gitopshq.activities.render.TarGz;
import dev.gitopshq.activities.store.TestSchema;
import dev.gitopshq.workflows.delivery.GenerationPlan;
import dev.gitopshq.workflows.delivery.GenerationRequest;
import dev.gitopshq.workflows.delivery.GenerationResult;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The generation activities on the real PostgreSQL, JGit and helm-java: the snapshot is handed in
 * (the hub reads it from the object model), everything else is the production code path.
 */
class GenerationActivitiesIT {
  static final String SCHEMA = "generation_it";
  static TestSchema schema;
  static GenerationMapper mapper;
  static AuditLog audit;
  static TransactionTemplate tx;
  static byte[] chart;
  static String digest;

  @TempDir Path dir;
  ProjectRepos repos;
  UUID org;
  UUID project;
  long revision;
  final AtomicReference<ProjectSnapshot> snapshot = new AtomicReference<>();
  GenerationActivitiesImpl activities;

  @BeforeAll
  static void database() throws Exception {
    schema =
        TestSchema.create(SCHEMA, GenerationMapper.class, ChartMapper.class, AuditMapper.class);
    mapper = schema.mapper(GenerationMapper.class);
    audit = new AuditLog(schema.mapper(AuditMapper.class), Clock.systemUTC());
    tx = schema.tx();
    chart = TarGz.webapp().build();
    digest = ChartArchive.inspect(chart).digest();
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
    UUID chartId = UUID.randomUUID();
    sql(
        "insert into organizations (id, slug, name, created_at) values (?, ?, 'Generation IT', now())",
        org,
        "g" + org.toString().substring(0, 8));
    sql(
        "insert into projects (id, org_id, name, created_by, created_at, updated_at) values (?, ?, 'shop', 'test', now(), now())",
        project,
        org);
    sql(
        "insert into charts (id, org_id, name, created_at) values (?, ?, 'webapp', now())",
        chartId,
        org);
    try (Connection c = schema.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "insert into chart_versions (org_id, chart_id, version, digest, size_bytes, archive, uploaded_by, created_at)"
                    + " values (?, ?, '0.1.0', ?, ?, ?, 'test', now())")) {
      ps.setObject(1, org);
      ps.setObject(2, chartId);
      ps.setString(3, digest);
      ps.setInt(4, chart.length);
      ps.setBytes(5, chart);
      ps.executeUpdate();
    }
    for (String env : List.of("staging", "production")) {
      sql(
          "insert into environments (id, org_id, name, position, created_at) values (?, ?, ?, ?, now())",
          UUID.randomUUID(),
          org,
          env,
          env.equals("staging") ? 1 : 2);
    }
    for (String tenant : List.of("acme", "globex")) {
      sql(
          "insert into tenants (id, org_id, name, created_at) values (?, ?, ?, now())",
          UUID.randomUUID(),
          org,
          tenant);
    }
    repos = new ProjectRepos(dir.resolve("repos"));
    repos.create(org, project);
    activities =
        new GenerationActivitiesImpl(
            mapper,
            schema.mapper(ChartMapper.class),
            (o, p) -> snapshot.get(),
            new Renderer(Files.createDirectories(dir.resolve("render"))),
            repos,
            audit,
            tx,
            Clock.systemUTC(),
            2);
    revision = 0;
  }

  static ProjectSnapshot snapshot(
      UUID org, UUID project, long revision, String acmeReplicas, String logLevel) {
    return new ProjectSnapshot(
        org,
        project,
        "shop",
        revision,
        List.of(
            new Environment(
                "staging",
                1,
                "{{ .tenant }}-{{ .environment }}",
                List.of(new ClusterTarget("eu-1", UUID.randomUUID(), Map.of()))),
            new Environment(
                "production",
                2,
                "{{ .tenant }}-{{ .environment }}",
                List.of(new ClusterTarget("eu-2", UUID.randomUUID(), Map.of())))),
        List.of("acme", "globex"),
        List.of(
            new Workload(
                "web",
                "webapp",
                "0.1.0",
                digest,
                Map.of("image", Map.of("tag", "1.4.2")),
                "image.tag")),
        List.of(
            new TenantValues(
                "web",
                "acme",
                "production",
                Map.of("replicaCount", Integer.parseInt(acmeReplicas)))),
        List.of(new Variable("project", null, null, null, "LOG", logLevel)),
        List.of());
  }

  /** Units the last {@link #generate} rendered (the others reused the last delivery's trees). */
  int rendered;

  /** One configuration revision, generated through every step the workflow takes. */
  GenerationResult generate(ProjectSnapshot s) throws Exception {
    revision++;
    sql("update projects set config_revision = ? where id = ?", revision, project);
    snapshot.set(s);
    GenerationRequest request =
        new GenerationRequest(org.toString(), project.toString(), revision, "config", "Ada Admin");
    GenerationPlan plan = activities.plan(request);
    rendered = 0;
    for (int b = 0; b < plan.batches(); b++) {
      rendered += activities.render(org.toString(), plan.generationId(), b);
    }
    return activities.commit(org.toString(), plan.generationId());
  }

  @Test
  void rendersEveryTenantEnvironmentIntoOneCommitOnMain() throws Exception {
    GenerationResult r = generate(snapshot(org, project, 1, "5", "info"));

    assertThat(r.status()).isEqualTo(GenerationResult.COMMITTED);
    assertThat(r.units()).isEqualTo(4);
    assertThat(rendered).isEqualTo(4);
    ObjectId head = repos.head(org, project, ProjectRepos.MAIN).orElseThrow();
    assertThat(head.name()).isEqualTo(r.commit());
    SortedMap<String, byte[]> files = repos.readFiles(org, project, head, "rendered");
    assertThat(files.keySet())
        .contains(
            "staging/eu-1/acme/web/deployment-web.yaml",
            "staging/eu-1/globex/web/deployment-web.yaml",
            "production/eu-2/acme/web/deployment-web.yaml",
            "production/eu-2/globex/web/deployment-web.yaml");
    String acmeProd =
        new String(
            files.get("production/eu-2/acme/web/deployment-web.yaml"), StandardCharsets.UTF_8);
    assertThat(acmeProd)
        .contains("namespace: acme-production")
        .contains("replicas: 5")
        .contains("1.4.2");
    String globexProd =
        new String(
            files.get("production/eu-2/globex/web/deployment-web.yaml"), StandardCharsets.UTF_8);
    assertThat(globexProd).contains("namespace: globex-production").contains("replicas: 1");

    ProjectRepos.CommitInfo info = repos.log(org, project, ProjectRepos.MAIN, 1).getFirst();
    assertThat(info.author()).isEqualTo("GitOpsHQ delivery generator");
    assertThat(info.message())
        .startsWith("Deliver revision 1 of shop: 4 of 4 units changed")
        .contains("GitOpsHQ-Author: delivery generator, for Ada Admin (config)")
        .contains(
            "GitOpsHQ-Scope: project=shop environments=production,staging tenants=acme,globex services=web")
        .contains("GitOpsHQ-Change: delivery.generated")
        .contains("added: production/eu-2/acme/web");
    assertThat(
            count(
                "select count(*) from deliveries where project_id = ? and generated_commit = ?",
                project,
                r.commit()))
        .isEqualTo(4);
    assertThat(count("select generated_revision from projects where id = ?", project)).isEqualTo(1);
  }

  @Test
  void theSameInputsProduceNoNewCommit() throws Exception {
    GenerationResult first = generate(snapshot(org, project, 1, "5", "info"));
    GenerationResult second = generate(snapshot(org, project, 2, "5", "info"));

    assertThat(second.status()).isEqualTo(GenerationResult.UNCHANGED);
    assertThat(second.commit()).isEqualTo(first.commit());
    assertThat(rendered).isZero();
    assertThat(repos.log(org, project, ProjectRepos.MAIN, 10)).hasSize(1);
    assertThat(count("select generated_revision from projects where id = ?", project)).isEqualTo(2);
  }

  @Test
  void aChangeForOneTenantCommitsOnlyThatTenantsFiles() throws Exception {
    GenerationResult first = generate(snapshot(org, project, 1, "5", "info"));
    GenerationResult second = generate(snapshot(org, project, 2, "7", "info"));

    assertThat(second.status()).isEqualTo(GenerationResult.COMMITTED);
    assertThat(second.detail()).isEqualTo("1 of 4 units changed");
    // Only the changed unit was rendered; the three others took the last delivery's trees.
    assertThat(rendered).isEqualTo(1);
    ObjectId a = ObjectId.fromString(first.commit());
    ObjectId b = ObjectId.fromString(second.commit());
    SortedMap<String, ObjectId> before = repos.listFiles(org, project, a, "rendered");
    SortedMap<String, ObjectId> after = repos.listFiles(org, project, b, "rendered");
    List<String> differing = new ArrayList<>();
    after.forEach(
        (path, id) -> {
          if (!id.equals(before.get(path))) {
            differing.add(path);
          }
        });
    assertThat(differing)
        .contains("production/eu-2/acme/web/deployment-web.yaml")
        .allMatch(p -> p.startsWith("production/eu-2/acme/web/"));
    assertThat(before.keySet()).isEqualTo(after.keySet());
    assertThat(repos.log(org, project, ProjectRepos.MAIN, 1).getFirst().message())
        .contains("GitOpsHQ-Scope: project=shop environments=production tenants=acme services=web");
  }

  @Test
  void anOlderRevisionIsSupersededAndNeverOverwritesANewerDelivery() throws Exception {
    generate(snapshot(org, project, 1, "5", "info"));
    // Revision 2 is planned and rendered, then revision 3 is generated before 2 commits.
    revision++;
    sql("update projects set config_revision = ? where id = ?", revision, project);
    snapshot.set(snapshot(org, project, 2, "6", "info"));
    GenerationPlan late =
        activities.plan(
            new GenerationRequest(org.toString(), project.toString(), 2, "config", "Ada"));
    for (int b = 0; b < late.batches(); b++) {
      activities.render(org.toString(), late.generationId(), b);
    }
    GenerationResult third = generate(snapshot(org, project, 3, "9", "info"));
    GenerationResult second = activities.commit(org.toString(), late.generationId());

    assertThat(third.status()).isEqualTo(GenerationResult.COMMITTED);
    assertThat(second.status()).isEqualTo(GenerationResult.SUPERSEDED);
    String acme =
        new String(
            repos
                .readFiles(
                    org,
                    project,
                    repos.head(org, project, ProjectRepos.MAIN).orElseThrow(),
                    "rendered")
                .get("production/eu-2/acme/web/deployment-web.yaml"),
            StandardCharsets.UTF_8);
    assertThat(acme).contains("replicas: 9");
    // A revision older than the generated one is not even planned.
    assertThat(
            activities
                .plan(new GenerationRequest(org.toString(), project.toString(), 2, "config", "Ada"))
                .generationId())
        .isEqualTo(late.generationId());
  }

  @Test
  void aConfigurationThatCannotBePlannedIsRecordedAsFailedWithTheReason() throws Exception {
    revision++;
    sql("update projects set config_revision = ? where id = ?", revision, project);
    ProjectSnapshot good = snapshot(org, project, 1, "5", "info");
    snapshot.set(
        new ProjectSnapshot(
            org,
            project,
            "shop",
            1,
            List.of(
                new Environment(
                    "production", 2, "{{ .environment }}", good.environments().get(1).clusters())),
            good.tenants(),
            good.workloads(),
            List.of(),
            good.variables(),
            List.of()));

    assertThatThrownBy(
            () ->
                activities.plan(
                    new GenerationRequest(org.toString(), project.toString(), 1, "config", "Ada")))
        .isInstanceOf(ApplicationFailure.class)
        .hasMessageContaining("{{ .tenant }}");
    assertThat(
            count(
                "select count(*) from generations where project_id = ? and status = 'failed'",
                project))
        .isEqualTo(1);
    assertThat(repos.head(org, project, ProjectRepos.MAIN)).isEmpty();
  }

  /**
   * PostgreSQL goes away after the delivery commit moved main but before the generation's rows were
   * written, and is still away when the commit is taken back: main returns to the last delivery
   * (not left ahead of the database), and the activity's retry commits the generation properly,
   * once. (Before the fix the take-back re-read the generation from the database that had just
   * failed, so main kept the commit and the retry found nothing to change: the generation was
   * recorded "unchanged", without its audit entry or its delivery records.)
   */
  @Test
  void aDatabaseLostAfterTheGitCommitTakesTheCommitBackAndTheRetryCommitsOnce() throws Exception {
    GenerationResult first = generate(snapshot(org, project, 1, "5", "info"));
    assertThat(first.status()).isEqualTo(GenerationResult.COMMITTED);
    ObjectId delivered = repos.head(org, project, ProjectRepos.MAIN).orElseThrow();

    java.util.concurrent.atomic.AtomicBoolean down =
        new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicBoolean armed =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    GenerationMapper dying =
        (GenerationMapper)
            java.lang.reflect.Proxy.newProxyInstance(
                GenerationMapper.class.getClassLoader(),
                new Class<?>[] {GenerationMapper.class},
                (proxy, method, args) -> {
                  // The last write of the commit transaction: main has moved by now.
                  if (method.getName().equals("recordGenerated") && armed.getAndSet(false)) {
                    down.set(true);
                  }
                  if (down.get()) {
                    throw new org.springframework.dao.DataAccessResourceFailureException(
                        "PostgreSQL is restarting");
                  }
                  try {
                    return method.invoke(mapper, args);
                  } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    GenerationActivitiesImpl cut =
        new GenerationActivitiesImpl(
            dying,
            schema.mapper(ChartMapper.class),
            (o, p) -> snapshot.get(),
            new Renderer(Files.createDirectories(dir.resolve("render-cut"))),
            repos,
            audit,
            tx,
            Clock.systemUTC(),
            2);
    revision++;
    sql("update projects set config_revision = ? where id = ?", revision, project);
    snapshot.set(snapshot(org, project, revision, "7", "info"));
    GenerationPlan plan =
        cut.plan(
            new GenerationRequest(
                org.toString(), project.toString(), revision, "config", "Ada Admin"));
    for (int b = 0; b < plan.batches(); b++) {
      cut.render(org.toString(), plan.generationId(), b);
    }

    assertThatThrownBy(() -> cut.commit(org.toString(), plan.generationId()))
        .isInstanceOf(org.springframework.dao.DataAccessResourceFailureException.class);
    assertThat(repos.head(org, project, ProjectRepos.MAIN)).contains(delivered);

    // PostgreSQL is back; Temporal retries the activity.
    down.set(false);
    GenerationResult retried = cut.commit(org.toString(), plan.generationId());
    assertThat(retried.status()).isEqualTo(GenerationResult.COMMITTED);
    ObjectId head = repos.head(org, project, ProjectRepos.MAIN).orElseThrow();
    assertThat(retried.commit()).isEqualTo(head.name());
    assertThat(repos.log(org, project, ProjectRepos.MAIN, 10)).hasSize(2);
    assertThat(repos.log(org, project, ProjectRepos.MAIN, 1).getFirst().parents())
        .containsExactly(delivered.name());
    assertThat(
            count(
                "select count(*) from audit_log where org_id = ? and action = 'delivery.generated'",
                org))
        .isEqualTo(2);
  }

  long count(String query, Object... args) throws Exception {
    return schema.count(query, args);
  }

  void sql(String statement, Object... args) throws Exception {
    schema.exec(statement, args);
  }
}
