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
import dev.gitopshq.workflows.generation.GenerationPlan;
import dev.gitopshq.workflows.generation.GenerationRequest;
import dev.gitopshq.workflows.generation.GenerationResult;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
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
 * The generation activities on the real PostgreSQL, JGit and render workers: the snapshot is handed
 * in (the hub reads it from the object model), everything else is the production code path.
 */
class GenerationActivitiesIT {
  static final String SCHEMA = "generation_it";
  static TestSchema schema;
  static GenerationMapper mapper;
  static AuditLog audit;
  static TransactionTemplate tx;
  static byte[] chart;
  static String digest;
  static byte[] chart2;
  static String digest2;

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
    chart2 =
        TarGz.webappWith(
            Map.of(
                "webapp/Chart.yaml",
                TarGz.webappFile("Chart.yaml").replace("version: 1.2.0", "version: 1.3.0")));
    digest2 = ChartArchive.inspect(chart2).digest();
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
    for (Object[] v :
        List.of(new Object[] {"0.1.0", digest, chart}, new Object[] {"0.2.0", digest2, chart2})) {
      try (Connection c = schema.dataSource().getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "insert into chart_versions (org_id, chart_id, version, digest, size_bytes, archive, uploaded_by, created_at)"
                      + " values (?, ?, ?, ?, ?, ?, 'test', now())")) {
        byte[] archive = (byte[]) v[2];
        ps.setObject(1, org);
        ps.setObject(2, chartId);
        ps.setString(3, (String) v[0]);
        ps.setString(4, (String) v[1]);
        ps.setInt(5, archive.length);
        ps.setBytes(6, archive);
        ps.executeUpdate();
      }
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
    activities = activities(Renderer.OUTPUT_VERSION);
    revision = 0;
  }

  /** The production activities, with a renderer of {@code outputVersion}. */
  GenerationActivitiesImpl activities(String outputVersion) throws Exception {
    return new GenerationActivitiesImpl(
        mapper,
        schema.mapper(ChartMapper.class),
        (o, p) -> snapshot.get(),
        new Renderer(outputVersion),
        repos,
        audit,
        tx,
        Clock.systemUTC(),
        2);
  }

  static ProjectSnapshot snapshot(
      UUID org, UUID project, long revision, String acmeReplicas, String logLevel) {
    return snapshot(org, project, revision, acmeReplicas, logLevel, null);
  }

  /**
   * Workload web on chart webapp 0.1.0 for tenants acme and globex in staging and production, and
   * when {@code apiChartVersion} is set a workload api on webapp at that version (0.1.0 or 0.2.0).
   */
  static ProjectSnapshot snapshot(
      UUID org,
      UUID project,
      long revision,
      String acmeReplicas,
      String logLevel,
      String apiChartVersion) {
    List<Workload> workloads = new ArrayList<>();
    workloads.add(
        new Workload(
            "web",
            "webapp",
            "0.1.0",
            digest,
            Map.of("image", Map.of("tag", "1.4.2")),
            "image.tag"));
    if (apiChartVersion != null) {
      workloads.add(
          new Workload(
              "api",
              "webapp",
              apiChartVersion,
              apiChartVersion.equals("0.2.0") ? digest2 : digest,
              Map.of("image", Map.of("tag", "2.0.0")),
              "image.tag"));
    }
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
        workloads,
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

  /** The generation the last {@link #generate} planned. */
  GenerationRow planned;

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
    GenerationResult result = activities.commit(org.toString(), plan.generationId());
    planned = mapper.find(org, UUID.fromString(plan.generationId())).orElseThrow();
    return result;
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
    assertThat(second.reused()).isEqualTo(3);
    assertThat(planned.renderedUnits()).isEqualTo(1);
    assertThat(planned.reusedUnits()).isEqualTo(3);
    assertThat(planned.batches()).as("one render batch for the one changed unit").isEqualTo(1);
    for (String unit :
        List.of("staging/eu-1/acme/web", "staging/eu-1/globex/web", "production/eu-2/globex/web")) {
      assertThat(unitTree(second, unit)).as(unit).isEqualTo(unitTree(first, unit));
    }
    assertThat(unitTree(second, "production/eu-2/acme/web"))
        .isNotEqualTo(unitTree(first, "production/eu-2/acme/web"));
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
  void aNewChartVersionRendersTheUnitsOfThatChartAgainAndReusesTheOthers() throws Exception {
    GenerationResult first = generate(snapshot(org, project, 1, "5", "info", "0.1.0"));
    assertThat(first.units()).isEqualTo(8);
    assertThat(rendered).isEqualTo(8);

    GenerationResult second = generate(snapshot(org, project, 2, "5", "info", "0.2.0"));

    assertThat(second.status()).isEqualTo(GenerationResult.COMMITTED);
    assertThat(rendered).as("api's four units, on the new chart version").isEqualTo(4);
    assertThat(second.reused()).isEqualTo(4);
    assertThat(second.detail()).isEqualTo("4 of 8 units changed");
    for (String env : List.of("staging/eu-1", "production/eu-2")) {
      for (String tenant : List.of("acme", "globex")) {
        String web = env + "/" + tenant + "/web";
        String api = env + "/" + tenant + "/api";
        assertThat(unitTree(second, web)).as(web).isEqualTo(unitTree(first, web));
        assertThat(unitTree(second, api)).as(api).isNotEqualTo(unitTree(first, api));
        assertThat(file(second, api + "/deployment-api.yaml")).contains("webapp-1.3.0");
      }
    }
  }

  @Test
  void aRendererOutputVersionChangeRendersEveryUnitAgain() throws Exception {
    GenerationResult first = generate(snapshot(org, project, 1, "5", "info"));
    activities = activities(Renderer.OUTPUT_VERSION + "-next");

    GenerationResult second = generate(snapshot(org, project, 2, "5", "info"));

    assertThat(rendered).isEqualTo(4);
    assertThat(second.reused()).isZero();
    assertThat(planned.renderedUnits()).isEqualTo(4);
    // The same renderer code made the same bytes: nothing to commit.
    assertThat(second.status()).isEqualTo(GenerationResult.UNCHANGED);
    assertThat(second.commit()).isEqualTo(first.commit());
  }

  @Test
  void anIncrementalDeliveryIsByteForByteWhatAFullRenderCommits() throws Exception {
    generate(snapshot(org, project, 1, "5", "info", "0.1.0"));
    GenerationResult incremental = generate(snapshot(org, project, 2, "7", "debug", "0.2.0"));
    assertThat(rendered).as("LOG changed every unit's variables").isEqualTo(8);
    GenerationResult onlyReplicas = generate(snapshot(org, project, 3, "9", "debug", "0.2.0"));
    assertThat(rendered).as("acme's web in production").isEqualTo(1);
    assertThat(onlyReplicas.status()).isEqualTo(GenerationResult.COMMITTED);

    // Every unit again from scratch, in a project of its own, from the same inputs.
    UUID fresh = UUID.randomUUID();
    sql(
        "insert into projects (id, org_id, name, created_by, created_at, updated_at) values (?, ?, 'shop-full', 'test', now(), now())",
        fresh,
        org);
    repos.create(org, fresh);
    UUID incrementalProject = project;
    project = fresh;
    revision = 0;
    GenerationResult full = generate(snapshot(org, fresh, 1, "9", "debug", "0.2.0"));
    assertThat(rendered).isEqualTo(8);

    SortedMap<String, byte[]> a =
        repos.readFiles(
            org, incrementalProject, ObjectId.fromString(onlyReplicas.commit()), "rendered");
    SortedMap<String, byte[]> b =
        repos.readFiles(org, fresh, ObjectId.fromString(full.commit()), "rendered");
    assertThat(a.keySet()).isEqualTo(b.keySet()).isNotEmpty();
    a.forEach((path, bytes) -> assertThat(bytes).as(path).isEqualTo(b.get(path)));
    assertThat(repos.treeAt(org, fresh, ObjectId.fromString(full.commit()), "rendered"))
        .isEqualTo(
            repos.treeAt(
                org, incrementalProject, ObjectId.fromString(onlyReplicas.commit()), "rendered"));
    assertThat(incremental.status()).isEqualTo(GenerationResult.COMMITTED);
  }

  @Test
  void aUnitWhoseRecordedTreeIsNoLongerInTheRepositoryIsRenderedAgain() throws Exception {
    GenerationResult first = generate(snapshot(org, project, 1, "5", "info"));
    // As if the tree had been pruned: the recorded id names nothing the repository holds.
    sql(
        "update generation_units set tree_id = ? where generation_id = ? and path = ?",
        "0123456789abcdef0123456789abcdef01234567",
        planned.id(),
        "rendered/staging/eu-1/acme/web");

    GenerationResult second = generate(snapshot(org, project, 2, "5", "info"));

    assertThat(rendered).isEqualTo(1);
    assertThat(second.reused()).isEqualTo(3);
    assertThat(second.status()).isEqualTo(GenerationResult.UNCHANGED);
    assertThat(second.commit()).isEqualTo(first.commit());
  }

  ObjectId unitTree(GenerationResult g, String unit) {
    return repos
        .treeAt(org, project, ObjectId.fromString(g.commit()), "rendered/" + unit)
        .orElseThrow(() -> new AssertionError("no tree rendered/" + unit + " in " + g.commit()));
  }

  String file(GenerationResult g, String path) {
    return new String(
        repos.readFiles(org, project, ObjectId.fromString(g.commit()), "rendered").get(path),
        StandardCharsets.UTF_8);
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
            new Renderer(),
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
