package dev.gitopshq.activities.release;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.audit.AuditMapper;
import dev.gitopshq.activities.delivery.EnvironmentMapper;
import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.delivery.ProjectTenantMapper;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import dev.gitopshq.activities.notify.NotificationSettingsMapper;
import dev.gitopshq.activities.notify.NotificationTargets;
import dev.gitopshq.activities.notify.WebhookNotifier;
import dev.gitopshq.activities.policy.OpaClient;
import dev.gitopshq.activities.policy.OpaTestServer;
import dev.gitopshq.activities.policy.PolicyMapper;
import dev.gitopshq.activities.policy.PolicyRepository;
import dev.gitopshq.activities.policy.PolicyService;
import dev.gitopshq.activities.store.TestSchema;
import dev.gitopshq.workflows.governance.Decision;
import dev.gitopshq.workflows.governance.Requester;
import dev.gitopshq.workflows.release.DeploymentRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The release decision on what a deployment changes, with the shipped {@code gitopshq.release}
 * policy in the real OPA: a release into {@code dev} whose generated tree adds a ClusterRoleBinding
 * waits for an admin, while one that only bumps a Deployment's image (next to a ClusterRoleBinding
 * the branch already holds) is written at once. The deployment keeps the change summary for its
 * readers.
 */
class ReleaseDecisionIT {
  static final String SCHEMA = "release_decision_it";
  static final ObjectMapper JSON = new ObjectMapper();
  static TestSchema schema;
  static OpaTestServer opa;
  static OpaClient client;
  static PolicyService policies;

  @TempDir Path dir;
  ProjectRepos repos;
  UUID org;
  UUID project;
  ReleaseActivitiesImpl activities;

  @BeforeAll
  static void start() throws Exception {
    schema =
        TestSchema.create(
            SCHEMA,
            ReleaseMapper.class,
            DeploymentMapper.class,
            DeliveryMapper.class,
            ProjectMapper.class,
            EnvironmentMapper.class,
            ProjectTenantMapper.class,
            NotificationSettingsMapper.class,
            AuditMapper.class,
            PolicyMapper.class);
    opa = OpaTestServer.startNew();
    client = opa.client();
    policies =
        new PolicyService(
            client,
            new PolicyRepository(schema.mapper(PolicyMapper.class)),
            new AuditLog(schema.mapper(AuditMapper.class), Clock.systemUTC()),
            new DataSourceTransactionManager(schema.dataSource()),
            Clock.systemUTC());
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (opa != null) {
      opa.close();
    }
    if (schema != null) {
      schema.close();
    }
  }

  @BeforeEach
  void project() throws Exception {
    org = UUID.randomUUID();
    project = UUID.randomUUID();
    sql(
        "insert into organizations (id, slug, name, created_at) values (?, ?, 'Decision IT', now())",
        org,
        "d" + org.toString().substring(0, 8));
    sql(
        "insert into projects (id, org_id, name, created_by, created_at, updated_at)"
            + " values (?, ?, 'shop', 'test', now(), now())",
        project,
        org);
    int position = 1;
    for (String env : List.of("dev", "production")) {
      sql(
          "insert into environments (id, org_id, name, position, created_at) values (?, ?, ?, ?, now())",
          UUID.randomUUID(),
          org,
          env,
          position++);
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
            policies,
            null,
            new DeployWriter(repos),
            new ConfigHistory(repos),
            new WebhookNotifier(
                new NotificationTargets(
                    schema.mapper(NotificationSettingsMapper.class),
                    new dev.gitopshq.activities.crypto.SecretBox(
                        dev.gitopshq.activities.crypto.SecretBox.newKey()),
                    java.util.Optional::empty,
                    null,
                    null,
                    o -> false,
                    clock),
                clock),
            new AuditLog(schema.mapper(AuditMapper.class), clock),
            schema.tx(),
            clock);
    String rego =
        Files.readString(
            OpaTestServer.repoRoot().resolve("policies/gitopshq/release/decision.rego"));
    policies.publish(org, ReleaseActivitiesImpl.RELEASE_POLICY, rego, Actor.system("test"));
  }

  @AfterEach
  void closeRepos() {
    repos.close();
  }

  static String deployment(String image) {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web, namespace: shop}
        spec:
          template:
            spec:
              containers: [{name: app, image: "%s"}]
        """
        .formatted(image);
  }

  static final String ADMIN_BINDING =
      """
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRoleBinding
      metadata: {name: web-admin}
      roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
      subjects: [{kind: ServiceAccount, name: web, namespace: shop}]
      """;

  @Test
  void aClusterRoleBindingInTheGeneratedTreeIsNotAutoApprovedInDev() throws Exception {
    String source =
        render(
            Map.of(
                "dev/c1/acme/web/deployment-web.yaml",
                deployment("shop/web:1.0"),
                "dev/c1/acme/web/clusterrolebinding-web-admin.yaml",
                ADMIN_BINDING));
    UUID release = release(1, source);
    UUID deployment = deployment(release);

    Decision d = activities.decide(request(release, deployment));

    assertThat(d.outcome()).isEqualTo("require_approval");
    assertThat(d.requiredApprovers()).isEqualTo(1);
    assertThat(d.approverRoles()).containsExactly("admin", "owner");
    assertThat(d.reasons().getFirst())
        .isEqualTo(
            "deploy of release #1 (project shop) to dev requires 1 approval: it adds, changes or"
                + " removes 1 RBAC or cluster-scoped object: added ClusterRoleBinding web-admin"
                + " (dev, cluster c1); such objects require approval in every environment");
    JsonNode summary = storedSummary(deployment);
    assertThat(summary.get("added").asLong()).isEqualTo(2);
    assertThat(summary.get("rbac").asLong()).isEqualTo(1);
    assertThat(summary.get("cluster_scoped").asLong()).isEqualTo(1);
    assertThat(summary.get("images").asLong()).isEqualTo(1);
  }

  @Test
  void aPlainDeploymentChangeIsAutoApprovedInDevEvenNextToAnUnchangedBinding() throws Exception {
    String first =
        render(
            Map.of(
                "dev/c1/acme/web/deployment-web.yaml",
                deployment("shop/web:1.0"),
                "dev/c1/acme/web/clusterrolebinding-web-admin.yaml",
                ADMIN_BINDING));
    new DeployWriter(repos)
        .deploy(
            org,
            project,
            "dev",
            ObjectId.fromString(first),
            Ident.HUB,
            "release #1 (approved)",
            "release #1");
    String second =
        render(
            Map.of(
                "dev/c1/acme/web/deployment-web.yaml",
                deployment("shop/web:1.1"),
                "dev/c1/acme/web/clusterrolebinding-web-admin.yaml",
                ADMIN_BINDING));
    UUID release = release(2, second);
    UUID deployment = deployment(release);

    Decision d = activities.decide(request(release, deployment));

    assertThat(d.outcome()).isEqualTo("auto_approve");
    assertThat(d.requiredApprovers()).isZero();
    assertThat(d.reasons().getFirst())
        .endsWith("; it adds, changes or removes no RBAC or cluster-scoped object");
    assertThat(storedSummary(deployment))
        .isEqualTo(
            JSON.readTree(
                "{\"added\":0,\"changed\":1,\"removed\":0,\"cluster_scoped\":0,\"rbac\":0,"
                    + "\"sensitive\":0,\"images\":1,\"unreadable\":0,\"truncated\":false}"));
  }

  // ---- helpers ------------------------------------------------------------------------------

  JsonNode storedSummary(UUID deployment) throws Exception {
    String json =
        schema.mapper(DeploymentMapper.class).findById(org, deployment).orElseThrow().changes();
    return JSON.readTree(json);
  }

  DeploymentRequest request(UUID release, UUID deployment) {
    return new DeploymentRequest(
        org.toString(),
        project.toString(),
        release.toString(),
        deployment.toString(),
        DeploymentRequest.DEPLOY,
        List.of("dev"),
        new Requester("m1", "member", "ada@example.com", "member", List.of(), List.of()),
        false,
        "",
        300,
        "deploy release #1 to dev");
  }

  /** Commits these files under {@code rendered/} on main (replacing it); returns the commit. */
  String render(Map<String, String> files) {
    List<TreeEdit> edits = new ArrayList<>();
    edits.add(TreeEdit.delete("rendered"));
    files.forEach(
        (p, c) -> edits.add(TreeEdit.file("rendered/" + p, c.getBytes(StandardCharsets.UTF_8))));
    return repos
        .commit(org, project, ProjectRepos.MAIN, null, edits, Ident.HUB, "render")
        .commitName();
  }

  UUID release(int number, String source) throws Exception {
    UUID id = UUID.randomUUID();
    sql(
        "insert into releases (id, org_id, project_id, number, kind, config_revision, source_commit,"
            + " requested_by, requester_name, created_at)"
            + " values (?, ?, ?, ?, 'standard', ?, ?, 'm1', 'Ada', now())",
        id,
        org,
        project,
        number,
        number,
        source);
    return id;
  }

  UUID deployment(UUID release) throws Exception {
    UUID id = UUID.randomUUID();
    sql(
        "insert into deployments (id, org_id, project_id, release_id, action, environment_ids,"
            + " status, requested_by, requester_name, created_at, updated_at)"
            + " values (?, ?, ?, ?, 'deploy',"
            + " array[(select id from environments where org_id = ? and name = 'dev')], 'pending',"
            + " 'm1', 'Ada', now(), now())",
        id,
        org,
        project,
        release,
        org);
    return id;
  }

  void sql(String statement, Object... args) throws Exception {
    schema.exec(statement, args);
  }
}
