package dev.gitopshq.activities.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariDataSource;
import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.audit.AuditMapper;
import dev.gitopshq.activities.store.InstantTypeHandler;
import dev.gitopshq.activities.store.UuidTypeHandler;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mybatis.spring.SqlSessionTemplate;
import org.mybatis.spring.transaction.SpringManagedTransactionFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * {@link PolicyService} on the real PostgreSQL and the real OPA: the order of publishing (OPA
 * first, then the database), putting OPA back when the database step fails, serialized concurrent
 * publishes, republishing into an empty OPA, and decisions that fail closed.
 *
 * <p>Runs in its own schema of the test database, so it neither sees nor disturbs the hub's
 * integration tests.
 */
class PolicyServiceIT {
  private static final String SCHEMA = "policy_service_it";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Actor ANA =
      new Actor("member", UUID.randomUUID().toString(), "ana@example.com");

  static OpaTestServer server;
  static OpaClient opa;
  static HikariDataSource db;
  static PolicyService policies;
  static PolicyRepository repository;
  static final AtomicBoolean auditFails = new AtomicBoolean();
  static DataSourceTransactionManager transactions;
  static AuditLog auditLog;

  UUID orgId;
  String name;

  @BeforeAll
  static void start() throws Exception {
    server = OpaTestServer.startNew();
    opa = server.client();

    String url =
        System.getenv()
            .getOrDefault("GITOPSHQ_TEST_DB_URL", "jdbc:postgresql://127.0.0.1:5432/gitopshq_test");
    db = new HikariDataSource();
    db.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "currentSchema=" + SCHEMA);
    db.setUsername(System.getenv().getOrDefault("GITOPSHQ_TEST_DB_USER", "gitopshq"));
    db.setPassword(System.getenv().getOrDefault("GITOPSHQ_TEST_DB_PASSWORD", "gitopshq"));
    db.setMaximumPoolSize(8);
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute("drop schema if exists " + SCHEMA + " cascade");
    }
    Flyway.configure().dataSource(db).schemas(SCHEMA).load().migrate();

    Configuration cfg = new Configuration();
    cfg.setMapUnderscoreToCamelCase(true);
    cfg.setArgNameBasedConstructorAutoMapping(true);
    cfg.getTypeHandlerRegistry().register(UuidTypeHandler.class);
    cfg.getTypeHandlerRegistry().register(InstantTypeHandler.class);
    cfg.addMapper(PolicyMapper.class);
    cfg.addMapper(AuditMapper.class);
    // As the hub's MyBatis starter does: sessions join Spring-managed transactions.
    cfg.setEnvironment(new Environment("test", new SpringManagedTransactionFactory(), db));
    SqlSessionFactory sessions = new SqlSessionFactoryBuilder().build(cfg);
    SqlSessionTemplate template = new SqlSessionTemplate(sessions);

    Clock clock = Clock.systemUTC();
    AuditLog audit =
        new AuditLog(template.getMapper(AuditMapper.class), clock) {
          @Override
          public void record(
              UUID orgId,
              Actor actor,
              String action,
              String targetType,
              String targetId,
              Map<String, ?> details) {
            if (auditFails.get()) {
              throw new IllegalStateException("the audit log is not writable (test)");
            }
            super.record(orgId, actor, action, targetType, targetId, details);
          }
        };
    repository = new PolicyRepository(template.getMapper(PolicyMapper.class));
    transactions = new DataSourceTransactionManager(db);
    auditLog = audit;
    // Checks OPA's modules before every decision (the hub's default reuses a check for 1 s;
    // aModulePlantedUnderAnIdTheHubDoesNotManageNeverChangesADecision covers that).
    policies = new PolicyService(opa, repository, audit, transactions, clock, Duration.ZERO);
  }

  @AfterAll
  static void stop() {
    if (db != null) {
      db.close();
    }
    if (opa != null) {
      opa.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void newOrganization() throws SQLException {
    auditFails.set(false);
    orgId = UUID.randomUUID();
    // Each test its own policy name too: OPA's policy ids carry no organization.
    name = "p" + orgId.toString().substring(0, 8);
    try (Connection c = db.getConnection();
        var ps =
            c.prepareStatement(
                "insert into organizations (id, slug, name, created_at) values (?, ?, ?, now())")) {
      ps.setObject(1, orgId);
      ps.setString(2, "org-" + orgId);
      ps.setString(3, "Test organization");
      ps.executeUpdate();
    }
  }

  String rego(String value) {
    return "package gitopshq." + name + "\n\ndecision := {\"value\": \"" + value + "\"}\n";
  }

  JsonNode loadedVersion() {
    return opa.evaluate(PolicyText.packagePath(orgId, name) + "/" + PolicyText.VERSION_RULE, null);
  }

  long rows() throws SQLException {
    try (Connection c = db.getConnection();
        var ps = c.prepareStatement("select count(*) from policies where org_id = ?")) {
      ps.setObject(1, orgId);
      try (var rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Test
  void whenTheDatabaseStepFailsAfterOpaAcceptedOpaGetsTheActiveVersionBack() throws Exception {
    policies.publish(orgId, name, rego("one"), ANA);
    assertThat(loadedVersion().asInt()).isEqualTo(1);

    auditFails.set(true);
    assertThatThrownBy(() -> policies.publish(orgId, name, rego("two"), ANA))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("audit log is not writable");

    assertThat(rows()).isEqualTo(1);
    assertThat(repository.findActive(orgId, name).orElseThrow().version()).isEqualTo(1);
    assertThat(loadedVersion().asInt()).isEqualTo(1);
    PolicyEvaluation e = policies.evaluate(orgId, name, JSON.createObjectNode());
    assertThat(e.policyVersion()).isEqualTo(1);
    assertThat(e.decision().get("value").asText()).isEqualTo("one");
  }

  long audited(String action) throws SQLException {
    try (Connection c = db.getConnection();
        var ps =
            c.prepareStatement(
                "select count(*) from audit_log where org_id = ? and action = ? and target_id = ?")) {
      ps.setObject(1, orgId);
      ps.setString(2, action);
      ps.setString(3, name);
      try (var rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  @Test
  void aModuleReplacedInOpaWithTheSameVersionLineIsRestoredAndAudited() throws Exception {
    policies.publish(orgId, name, rego("honest"), ANA);
    String honest = PolicyText.forOpa(orgId, rego("honest"), 1);
    // Someone with OPA's token swaps the module and keeps the version line: a version check alone
    // would not notice, and decisions would claim version 1.
    opa.putPolicy(PolicyText.opaPolicyId(orgId, name), PolicyText.forOpa(orgId, rego("forged"), 1));

    PolicyService.RepublishReport report = policies.republish(orgId);

    assertThat(report.uploaded()).contains(name + " v1");
    assertThat(opa.getPolicy(PolicyText.opaPolicyId(orgId, name))).contains(honest);
    PolicyEvaluation after = policies.evaluate(orgId, name, JSON.createObjectNode());
    assertThat(after.decision().get("value").asText()).isEqualTo("honest");
    assertThat(audited("policy.restored")).isEqualTo(1);
    // A second pass finds nothing to repair and audits nothing more.
    assertThat(policies.republish(orgId).uploaded()).doesNotContain(name + " v1");
    assertThat(audited("policy.restored")).isEqualTo(1);
  }

  @Test
  void aModuleReplacedInOpaIsPutBackBeforeTheNextDecision() throws Exception {
    policies.publish(orgId, name, rego("honest"), ANA);
    opa.putPolicy(PolicyText.opaPolicyId(orgId, name), PolicyText.forOpa(orgId, rego("forged"), 1));

    PolicyEvaluation e = policies.evaluate(orgId, name, JSON.createObjectNode());

    assertThat(e.decision().get("value").asText()).isEqualTo("honest");
    assertThat(e.policySha256()).isEqualTo(PolicyText.sha256(rego("honest")));
    assertThat(audited("policy.restored")).isEqualTo(1);
  }

  /** A policy whose decision lists the approvers a partial set rule collects. */
  String approversRego() {
    return "package gitopshq."
        + name
        + "\n\napprovers contains \"admin\"\n\ndecision := {\"approvers\": approvers}\n";
  }

  /** A module adding an approver to the policy's package, as someone holding OPA's token could. */
  String planted() {
    return "package "
        + PolicyText.orgRoot(orgId)
        + ".gitopshq."
        + name
        + "\n\n"
        + "approvers contains \"mallory\"\n";
  }

  /**
   * PUT /v1/policies/<id> as an operator of OPA (the test-only token OPA admits for every call: the
   * hub's token may upload only under the hub's ids), the id percent-encoded whole (slashes too).
   */
  void plant(String id, String text) throws Exception {
    HttpRequest put =
        HttpRequest.newBuilder(
                server
                    .url()
                    .resolve(
                        "/v1/policies/"
                            + URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20")))
            .header("Authorization", "Bearer " + server.operatorToken())
            .PUT(HttpRequest.BodyPublishers.ofString(text))
            .build();
    HttpResponse<String> answer =
        HttpClient.newHttpClient().send(put, HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
  }

  List<String> approvers(PolicyEvaluation e) {
    List<String> out = new ArrayList<>();
    e.decision().get("approvers").forEach(a -> out.add(a.asText()));
    return out;
  }

  long auditedRemoval(String moduleId) throws SQLException {
    try (Connection c = db.getConnection();
        var ps =
            c.prepareStatement(
                "select count(*) from audit_log where org_id = ? and action ="
                    + " 'policy.unmanaged_module_removed' and target_id = ?"
                    + " and details::jsonb->>'moduleId' = ? and details::jsonb->>'sha256' is not null")) {
      ps.setObject(1, orgId);
      ps.setString(2, moduleId);
      ps.setString(3, moduleId);
      try (var rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** The ids OPA holds, except its own configuration (the authorization policy it started with). */
  List<String> idsInOpa() {
    return opa.listPolicies().stream()
        .filter(m -> !m.packagePath().get(0).equals("system"))
        .map(OpaClient.Module::id)
        .toList();
  }

  @Test
  void aModulePlantedUnderAnIdTheHubDoesNotManageNeverChangesADecision() throws Exception {
    policies.publish(orgId, name, approversRego(), ANA);
    String id = PolicyText.opaPolicyId(orgId, name);
    // As the hub runs: a check of OPA's modules serves decisions for 1 s.
    PolicyService hub =
        new PolicyService(opa, repository, auditLog, transactions, Clock.systemUTC());
    String odd = "/tmp/planted " + name + ".rego";
    plant(odd, planted());
    // Planted, the module changes what OPA answers for the package while the hub's module, and the
    // version and text hash it reports, stay the same.
    assertThat(opa.evaluate(PolicyText.packagePath(orgId, name) + "/decision", null).toString())
        .contains("mallory");

    PolicyEvaluation first = hub.evaluate(orgId, name, JSON.createObjectNode());

    assertThat(approvers(first)).containsExactly("admin");
    assertThat(idsInOpa()).doesNotContain(odd).contains(id);
    assertThat(auditedRemoval(odd)).isEqualTo(1);
    // The hash the decision reports is the text OPA really holds under the policy's id.
    String held = opa.getPolicy(id).orElseThrow();
    assertThat(held).isEqualTo(PolicyText.forOpa(orgId, approversRego(), 1));
    assertThat(held).contains("\"" + first.policySha256() + "\"");
    assertThat(first.policySha256()).isEqualTo(PolicyText.sha256(approversRego()));
    assertThat(hub.moduleSetSha256()).isEqualTo(moduleSetSha256());

    // Planted again after that check: no decision is taken on a check older than 1 s.
    plant("planted/" + name, planted());
    Thread.sleep(1100);
    PolicyEvaluation later = hub.evaluate(orgId, name, JSON.createObjectNode());
    assertThat(approvers(later)).containsExactly("admin");
    assertThat(idsInOpa()).doesNotContain("planted/" + name);
    assertThat(auditedRemoval("planted/" + name)).isEqualTo(1);
  }

  /** A decision document PolicyDecision accepts: the outcome and one reason. */
  String outcomeRego(String outcome, String reason) {
    return "package gitopshq."
        + name
        + "\n\ndecision := {\"outcome\": \""
        + outcome
        + "\", \"required_approvers\": "
        + (outcome.equals("require_approval") ? 1 : 0)
        + ", \"approver_roles\": [\"admin\"], \"approver_teams\": [], \"reasons\": [\""
        + reason
        + "\"]} if input.ok\n";
  }

  @Test
  void aDraftIsEvaluatedInOpaBesideThePublishedVersionWhichKeepsDecidingAndThenItIsGone() {
    policies.publish(orgId, name, outcomeRego("auto_approve", "published"), ANA);
    ObjectNode ok = JSON.createObjectNode().put("ok", true);
    ObjectNode notOk = JSON.createObjectNode().put("ok", false);

    PolicyDrafts.DraftRun run =
        policies.evaluateDraft(
            orgId, name, outcomeRego("require_approval", "draft"), List.of(ok, notOk));

    assertThat(run.timedOut()).isFalse();
    assertThat(run.sha256()).isEqualTo(PolicyText.sha256(outcomeRego("require_approval", "draft")));
    assertThat(run.decisions().get(0).decision().outcome())
        .isEqualTo(PolicyDecision.Outcome.REQUIRE_APPROVAL);
    assertThat(run.decisions().get(0).decision().reasons()).containsExactly("draft");
    assertThat(run.decisions().get(1).decision()).isNull();
    assertThat(run.decisions().get(1).error()).contains("no decision");
    assertThat(idsInOpa()).noneMatch(i -> i.startsWith("whatif/"));
    assertThat(policies.decide(orgId, name, ok).reasons()).containsExactly("published");
  }

  @Test
  void aFreshDraftInItsScratchPackageIsLeftAloneByTheModuleCheckAndAStaleOneIsRemoved()
      throws Exception {
    policies.publish(orgId, name, outcomeRego("auto_approve", "published"), ANA);
    policies.requireManagedModules();
    String before = policies.moduleSetSha256();
    String token = UUID.randomUUID().toString().replace("-", "");
    String fresh = "whatif/" + System.currentTimeMillis() + "/" + token + "/gitopshq/" + name;
    plant(fresh, PolicyText.forScratch(orgId, token, outcomeRego("deny", "draft")));

    PolicyDecision d = policies.decide(orgId, name, JSON.createObjectNode().put("ok", true));

    assertThat(d.reasons()).containsExactly("published");
    assertThat(idsInOpa()).contains(fresh);
    assertThat(policies.moduleSetSha256()).isEqualTo(before);

    String staleToken = UUID.randomUUID().toString().replace("-", "");
    String stale =
        "whatif/"
            + (System.currentTimeMillis() - PolicyDrafts.SCRATCH_MAX_AGE.toMillis() - 1000)
            + "/"
            + staleToken
            + "/gitopshq/"
            + name;
    plant(stale, PolicyText.forScratch(orgId, staleToken, outcomeRego("deny", "draft")));
    policies.removeUnmanaged();
    assertThat(idsInOpa()).doesNotContain(stale).contains(fresh);
    opa.deletePolicy(fresh);
  }

  @Test
  void aModuleUnderAScratchIdDeclaringTheLivePackageIsRemovedBeforeItDecidesAnything()
      throws Exception {
    policies.publish(orgId, name, approversRego(), ANA);
    String token = UUID.randomUUID().toString().replace("-", "");
    String id = "whatif/" + System.currentTimeMillis() + "/" + token + "/gitopshq/" + name;
    plant(id, planted());

    PolicyEvaluation e = policies.evaluate(orgId, name, JSON.createObjectNode());

    assertThat(approvers(e)).containsExactly("admin");
    assertThat(idsInOpa()).doesNotContain(id);
  }

  @Test
  void aDraftOpaRefusesIsReportedAsWrittenAndNothingStays() {
    policies.publish(orgId, name, approversRego(), ANA);

    assertThatThrownBy(
            () ->
                policies.evaluateDraft(orgId, name, approversRego() + "\nbroken := {\n", List.of()))
        .isInstanceOfSatisfying(
            PolicyCompileException.class,
            e -> {
              assertThat(e.policyId()).isEqualTo("gitopshq/" + name);
              assertThat(e.errors().get(0).location().file()).isEqualTo("gitopshq/" + name);
              assertThat(e.getMessage()).doesNotContain("org_").doesNotContain("whatif");
            });
    assertThat(idsInOpa()).noneMatch(i -> i.startsWith("whatif/"));
  }

  /** What PolicyService#moduleSetSha256 promises: every module OPA holds, its id and its text. */
  String moduleSetSha256() {
    java.util.TreeMap<String, String> set = new java.util.TreeMap<>();
    opa.listPolicies().forEach(m -> set.put(PolicyText.sha256(m.id()), PolicyText.sha256(m.raw())));
    StringBuilder all = new StringBuilder();
    set.forEach((i, t) -> all.append(i).append(' ').append(t).append('\n'));
    return PolicyText.sha256(all.toString());
  }

  @Test
  void decisionsFailClosedWhileOpaHoldsAModuleTheHubCannotRemove() throws Exception {
    policies.publish(orgId, name, approversRego(), ANA);
    String id = "planted/" + name;
    plant(id, planted());
    // An OPA that refuses every removal.
    OpaClient refusing =
        new OpaClient(server.url(), server.token()) {
          @Override
          public void deleteListedPolicy(String module) {
            throw new OpaException("OPA refused to remove " + module + " (test)");
          }
        };
    try {
      PolicyService hub =
          new PolicyService(
              refusing, repository, auditLog, transactions, Clock.systemUTC(), Duration.ZERO);

      assertThatThrownBy(() -> hub.evaluate(orgId, name, JSON.createObjectNode()))
          .isInstanceOf(UnmanagedModulesException.class)
          .isInstanceOf(OpaUnavailableException.class)
          .hasMessageContaining("holds modules the hub does not manage")
          .hasMessageContaining(id)
          .hasMessageNotContaining(server.token());
      assertThat(auditedRemoval(id)).isZero();

      // Once the module is gone, decisions are taken again.
      opa.deletePolicy(id);
      assertThat(approvers(hub.evaluate(orgId, name, JSON.createObjectNode())))
          .containsExactly("admin");
    } finally {
      refusing.close();
    }
  }

  @Test
  void aModuleUnderTheHubsIdThatWidensOpasAuthorizationIsRemovedBeforeTheNextDecision()
      throws Exception {
    policies.publish(orgId, name, approversRego(), ANA);
    PolicyService hub =
        new PolicyService(
            opa, repository, auditLog, transactions, Clock.systemUTC(), Duration.ZERO);
    // The hub's token may upload under the hub's ids only, but the text may declare OPA's own
    // package: this one lets every call through, anonymous ones included.
    String widening = PolicyText.opaPolicyId(orgId, "widen-" + name);
    opa.putPolicy(widening, "package system.authz\n\nallow if true\n");
    try (OpaClient anonymous = new OpaClient(server.url())) {
      assertThat(anonymous.listPolicyIds()).contains(widening);

      assertThat(approvers(hub.evaluate(orgId, name, JSON.createObjectNode())))
          .containsExactly("admin");

      assertThat(opa.listPolicyIds()).doesNotContain(widening);
      assertThat(auditedRemoval(widening)).isEqualTo(1);
      assertThatThrownBy(anonymous::listPolicyIds).hasMessageContaining("401");
    }
  }

  @Test
  void theRepublisherRemovesEveryModuleItDoesNotManageAndAuditsEachButLeavesOpasOwn()
      throws Exception {
    policies.publish(orgId, name, approversRego(), ANA);
    String stale = PolicyText.idPrefix(orgId) + "gitopshq/gone-" + name;
    opa.putPolicy(stale, "package " + PolicyText.orgRoot(orgId) + ".gitopshq.gone\n\nx := 1\n");
    String odd = "evil\u202e/" + name;
    plant(odd, planted());
    // Two modules, one reading the other's rule.
    plant(
        "planted/" + name + "/helper",
        "package " + PolicyText.orgRoot(orgId) + ".gitopshq.helper\n\nh := \"mallory\"\n");
    plant(
        "planted/" + name + "/user",
        planted()
            + "\napprovers contains data."
            + PolicyText.orgRoot(orgId)
            + ".gitopshq.helper.h\n");

    List<String> removed = policies.removeUnmanaged();

    assertThat(removed)
        .contains(
            stale,
            "evil\\u202e/" + name,
            "planted/" + name + "/helper",
            "planted/" + name + "/user");
    assertThat(idsInOpa())
        .contains(PolicyText.opaPolicyId(orgId, name))
        .noneMatch(i -> i.contains("planted/") || i.startsWith("evil") || i.equals(stale));
    // OPA's authorization policy stays: the hub still gets answers with its token.
    assertThat(opa.listPolicies())
        .anyMatch(m -> m.packagePath().equals(List.of("system", "authz")));
    assertThat(auditedRemoval(stale)).isEqualTo(1);
    assertThat(auditedRemoval("evil\\u202e/" + name)).isEqualTo(1);
    assertThat(auditedRemoval("planted/" + name + "/helper")).isEqualTo(1);
    assertThat(policies.removeUnmanaged()).isEmpty();
  }

  @Test
  void everyDecisionCarriesTheSha256OfTheTextThatProducedIt() throws Exception {
    policies.publish(orgId, name, rego("one"), ANA);
    policies.publish(orgId, name, rego("two"), ANA);

    PolicyEvaluation e = policies.evaluate(orgId, name, JSON.createObjectNode());

    assertThat(e.policyVersion()).isEqualTo(2);
    assertThat(e.policySha256()).isEqualTo(PolicyText.sha256(rego("two")));
    assertThat(e.policySha256()).isNotEqualTo(PolicyText.sha256(rego("one")));
  }

  @Test
  void aModuleOpaRefusesStoresNothingAndLeavesOpaAsItWas() throws Exception {
    policies.publish(orgId, name, rego("one"), ANA);

    assertThatThrownBy(() -> policies.publish(orgId, name, rego("two") + "\nbroken if {\n", ANA))
        .isInstanceOf(PolicyCompileException.class);

    assertThat(rows()).isEqualTo(1);
    assertThat(loadedVersion().asInt()).isEqualTo(1);
  }

  @Test
  void concurrentPublishesGetDistinctVersionsAndOpaEndsWithTheActiveOne() throws Exception {
    policies.publish(orgId, name, rego("base"), ANA);
    Map<Integer, String> writerByVersion = new java.util.TreeMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<PolicyService.Published>> results = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        String text = rego("writer-" + i);
        Callable<PolicyService.Published> publish = () -> policies.publish(orgId, name, text, ANA);
        results.add(pool.submit(publish));
      }
      for (int i = 0; i < results.size(); i++) {
        writerByVersion.put(results.get(i).get().policy().version(), "writer-" + i);
      }
    } finally {
      pool.shutdown();
    }

    assertThat(writerByVersion).containsOnlyKeys(2, 3, 4, 5);
    assertThat(repository.findActive(orgId, name).orElseThrow().version()).isEqualTo(5);
    assertThat(repository.versions(orgId, name)).filteredOn(PolicyVersionRow::active).hasSize(1);
    // OPA holds exactly what the database says is active: the last writer's text, as version 5.
    PolicyEvaluation e = policies.evaluate(orgId, name, JSON.createObjectNode());
    assertThat(e.policyVersion()).isEqualTo(5);
    assertThat(e.decision().get("value").asText()).isEqualTo(writerByVersion.get(5));
  }

  @Test
  void aSeededDefaultIsVersionOneOnceAndRepublishingFillsAnEmptyOpa() throws Exception {
    assertThat(policies.seedIfAbsent(orgId, name, rego("shipped"))).isPresent();
    assertThat(policies.seedIfAbsent(orgId, name, rego("shipped, newer"))).isEmpty();
    PolicyRow v1 = repository.findActive(orgId, name).orElseThrow();
    assertThat(v1.version()).isEqualTo(1);
    assertThat(v1.createdBy()).isEqualTo("system");
    // Stored without OPA: OPA does not hold it, so there is no decision yet.
    assertThat(loadedVersion().isMissingNode()).isTrue();
    assertThatThrownBy(() -> policies.decide(orgId, name, JSON.createObjectNode()))
        .isInstanceOf(OpaUnavailableException.class)
        .hasMessageContaining("not loaded in OPA");

    assertThat(policies.republish(orgId).uploaded()).containsExactly(name + " v1");
    assertThat(policies.republish(orgId).uploaded()).isEmpty();
    assertThat(loadedVersion().asInt()).isEqualTo(1);
  }

  @Test
  void decisionsFailClosed() throws Exception {
    String approval =
        "package gitopshq."
            + name
            + "\n\ndecision := {\"outcome\": \"require_approval\", \"required_approvers\": 2,"
            + " \"approver_roles\": [\"admin\"], \"reasons\": [\"because\"]} if input.ok\n";
    policies.publish(orgId, name, approval, ANA);

    PolicyDecision d = policies.decide(orgId, name, JSON.readTree("{\"ok\": true}"));
    assertThat(d.outcome()).isEqualTo(PolicyDecision.Outcome.REQUIRE_APPROVAL);
    assertThat(d.requiredApprovers()).isEqualTo(2);
    assertThat(d.policyVersion()).isEqualTo(1);

    // Undefined decision: an error, never an approval.
    assertThatThrownBy(() -> policies.decide(orgId, name, JSON.readTree("{\"ok\": false}")))
        .isInstanceOf(PolicyEvaluationException.class)
        .hasMessageContaining("produced no decision");
    assertThatThrownBy(() -> policies.decide(orgId, "no-such-policy", JSON.createObjectNode()))
        .isInstanceOf(UnknownPolicyException.class);
    // Another organization does not see this one's policies.
    assertThatThrownBy(() -> policies.decide(UUID.randomUUID(), name, JSON.createObjectNode()))
        .isInstanceOf(UnknownPolicyException.class);
  }

  @Test
  void publishingTheActiveTextAgainStoresNothing() throws Exception {
    Instant before = Instant.now();
    PolicyService.Published first = policies.publish(orgId, name, rego("same"), ANA);
    PolicyService.Published again = policies.publish(orgId, name, rego("same"), ANA);

    assertThat(first.changed()).isTrue();
    assertThat(first.policy().createdAt()).isAfterOrEqualTo(before.minusSeconds(1));
    assertThat(again.changed()).isFalse();
    assertThat(again.policy().version()).isEqualTo(1);
    assertThat(rows()).isEqualTo(1);
  }
}
