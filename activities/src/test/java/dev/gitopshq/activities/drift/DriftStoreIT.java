package dev.gitopshq.activities.drift;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.audit.AuditMapper;
import dev.gitopshq.activities.store.TestSchema;
import dev.gitopshq.agent.v1.DriftDifference;
import dev.gitopshq.agent.v1.DriftObjectResult;
import dev.gitopshq.agent.v1.DriftReport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A drift check's report recorded on PostgreSQL: an object the agent could not compare, or did not
 * report, is not compared (unknown, with why), never in sync; it neither opens nor resolves a
 * finding, and the check and its audit entry say how many objects were not compared.
 */
class DriftStoreIT {
  static final ObjectMapper JSON = new ObjectMapper();
  static TestSchema schema;
  DriftStore store;
  DriftMapper mapper;
  UUID org;
  UUID cluster;
  final UUID project = UUID.randomUUID();

  @BeforeAll
  static void database() throws Exception {
    schema = TestSchema.create("drift_store_it", DriftMapper.class, AuditMapper.class);
  }

  @AfterAll
  static void close() {
    if (schema != null) {
      schema.close();
    }
  }

  @BeforeEach
  void cluster() throws Exception {
    org = schema.newOrg();
    cluster = schema.newCluster(org);
    mapper = schema.mapper(DriftMapper.class);
    store =
        new DriftStore(
            mapper,
            new AuditLog(schema.mapper(AuditMapper.class), Clock.systemUTC()),
            schema.tx(),
            Clock.systemUTC());
  }

  DesiredObject desired(String group, String kind, String name) {
    return new DesiredObject(
        project,
        "shop",
        "production",
        "acme",
        "prod/acme/web/" + name + ".yaml",
        group,
        "v1",
        kind,
        "shop",
        name,
        "{\"kind\":\"" + kind + "\"}");
  }

  static DriftObjectResult.Builder result(DesiredObject d, DriftObjectResult.State state) {
    return DriftObjectResult.newBuilder()
        .setGroup(d.group())
        .setVersion(d.version())
        .setKind(d.kind())
        .setNamespace(d.namespace())
        .setName(d.name())
        .setState(state)
        .setFieldManager("gitopshq-agent");
  }

  static DriftObjectResult.Builder replicas(DesiredObject d) {
    return result(d, DriftObjectResult.State.DRIFTED)
        .addDifferences(
            DriftDifference.newBuilder()
                .setPath("spec.replicas")
                .setDesired("2")
                .setLive("3")
                .setSeverity("functional"));
  }

  record Run(UUID checkId, DriftStore.Outcome outcome) {}

  Run check(List<DesiredObject> desired, DriftObjectResult.Builder... results) {
    DriftReport.Builder report = DriftReport.newBuilder();
    for (DriftObjectResult.Builder r : results) {
      report.addObjects(r);
    }
    return check(desired, report.build());
  }

  Run check(List<DesiredObject> desired, DriftReport report) {
    UUID id = store.request(org, cluster, "manual", "alice");
    return new Run(id, store.record(org, cluster, "prod", id, desired, report));
  }

  DriftCheckRow row(Run run) {
    return mapper.findCheck(org, cluster, run.checkId()).orElseThrow();
  }

  List<String> unknown(Run run) {
    return mapper.unknowns(org, cluster, run.checkId()).stream()
        .map(u -> u.kind() + " " + u.name() + ": " + u.reason())
        .toList();
  }

  JsonNode audited(Run run) throws Exception {
    try (Connection c = schema.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "select details from audit_log where org_id = ? and action = 'drift.checked'"
                    + " and details::jsonb->>'checkId' = ?")) {
      ps.setObject(1, org);
      ps.setString(2, run.checkId().toString());
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("drift.checked of " + run.checkId()).isTrue();
        return JSON.readTree(rs.getString(1));
      }
    }
  }

  @Test
  void objectsTheAgentCouldNotCompareOrDidNotReportAreNotCountedInSync() throws Exception {
    DesiredObject web = desired("apps", "Deployment", "web");
    DesiredObject settings = desired("", "ConfigMap", "settings");
    DesiredObject svc = desired("", "Service", "web");

    // The bug: the API server refused the Deployment's comparison, and the agent left the Service
    // out of its report; the check said "3 objects, 0 drifted" as if all were in sync.
    Run run =
        check(
            List.of(web, settings, svc),
            result(web, DriftObjectResult.State.FAILED)
                .setError("the API server answered 400: namespace not specified\n\u001b[31mred"),
            result(settings, DriftObjectResult.State.IN_SYNC));

    assertThat(run.outcome().unknown()).isEqualTo(2);
    DriftCheckRow c = row(run);
    assertThat(c.status()).isEqualTo("completed");
    assertThat(c.objects()).isEqualTo(3);
    assertThat(c.drifted()).isZero();
    assertThat(c.unknown()).isEqualTo(2);
    assertThat(c.summary()).isEqualTo("3 objects: 0 drifted, 2 not compared");
    // The reasons, with the agent's control characters escaped (no forged lines, no colours).
    assertThat(unknown(run))
        .containsExactly(
            "Deployment web: the API server answered 400: namespace not specified\\u000a"
                + "\\u001b[31mred",
            "Service web: the agent did not report this object");
    assertThat(mapper.unknowns(org, cluster, run.checkId()).getFirst().sourcePath())
        .isEqualTo("prod/acme/web/web.yaml");
    // Not a drift: no finding for them.
    assertThat(mapper.open(org, cluster)).isEmpty();

    JsonNode audit = audited(run);
    assertThat(audit.get("unknown").asInt()).isEqualTo(2);
    assertThat(audit.get("drifted").asInt()).isZero();
    assertThat(audit.get("summary").asText()).isEqualTo("3 objects: 0 drifted, 2 not compared");
    assertThat(audit.get("notCompared").get(1).asText())
        .isEqualTo("Service shop/web: the agent did not report this object");

    // Another organization does not see them.
    assertThat(mapper.unknowns(schema.newOrg(), cluster, run.checkId())).isEmpty();
  }

  @Test
  void anOpenFindingStaysOpenWhileItsObjectIsNotComparedAndAComparisonSettlesIt() throws Exception {
    DesiredObject web = desired("apps", "Deployment", "web");
    Run drifted = check(List.of(web), replicas(web));
    assertThat(drifted.outcome().opened()).isEqualTo(1);
    DriftFindingRow finding = mapper.open(org, cluster).getFirst();

    // The comparison fails, then the agent reports no state at all (an agent newer than the hub):
    // neither says the Deployment is back in sync, so the finding stays open and unchanged.
    Run failed =
        check(
            List.of(web),
            result(web, DriftObjectResult.State.FAILED).setError("the check's deadline passed"));
    Run unspecified = check(List.of(web), result(web, DriftObjectResult.State.STATE_UNSPECIFIED));
    assertThat(failed.outcome().resolved()).isZero();
    assertThat(unspecified.outcome().resolved()).isZero();
    assertThat(row(unspecified).unknown()).isEqualTo(1);
    assertThat(unknown(failed)).containsExactly("Deployment web: the check's deadline passed");
    assertThat(unknown(unspecified))
        .containsExactly("Deployment web: the agent reported no comparison state for this object");
    DriftFindingRow still = mapper.findFinding(org, cluster, finding.id()).orElseThrow();
    assertThat(still.open()).isTrue();
    assertThat(still.lastSeenAt()).isEqualTo(finding.lastSeenAt());
    assertThat(still.lastCheckId()).isEqualTo(drifted.checkId());
    assertThat(mapper.latestFinishedCheck(org, cluster).orElseThrow().id())
        .isEqualTo(unspecified.checkId());

    // Compared again and in sync: the finding is resolved, and the cluster's newest check has
    // nothing left that was not compared.
    Run synced = check(List.of(web), result(web, DriftObjectResult.State.IN_SYNC));
    assertThat(synced.outcome().resolved()).isEqualTo(1);
    assertThat(row(synced).unknown()).isZero();
    assertThat(row(synced).summary()).isEqualTo("1 object: 0 drifted, all in sync");
    assertThat(unknown(synced)).isEmpty();
    assertThat(mapper.findFinding(org, cluster, finding.id()).orElseThrow().open()).isFalse();
  }

  @Test
  void aCheckTheAgentDidNotAnswerFailsWithEveryObjectNotCompared() throws Exception {
    DesiredObject web = desired("apps", "Deployment", "web");
    DesiredObject settings = desired("", "ConfigMap", "settings");
    check(List.of(web), replicas(web));

    Run run =
        check(
            List.of(web, settings),
            DriftReport.newBuilder().setError("the agent did not report within 30 s").build());

    DriftCheckRow c = row(run);
    assertThat(c.status()).isEqualTo("failed");
    assertThat(c.unknown()).isEqualTo(2);
    assertThat(c.summary())
        .isEqualTo("2 objects: none compared (the agent did not report within 30 s)");
    assertThat(unknown(run))
        .containsExactly(
            "ConfigMap settings: the agent did not report within 30 s",
            "Deployment web: the agent did not report within 30 s");
    assertThat(mapper.open(org, cluster)).hasSize(1);
    assertThat(audited(run).get("status").asText()).isEqualTo("failed");
  }

  @Test
  void findingsAreKeyedByTheObjectsGroupToo() {
    // Two kinds of the same name in different API groups are different objects.
    DesiredObject ingress = desired("networking.k8s.io", "Ingress", "web");
    DesiredObject legacy = desired("extensions", "Ingress", "web");

    Run both = check(List.of(ingress, legacy), replicas(ingress), replicas(legacy));
    assertThat(both.outcome().opened()).isEqualTo(2);
    assertThat(mapper.open(org, cluster))
        .extracting(DriftFindingRow::apiGroup)
        .containsExactlyInAnyOrder("networking.k8s.io", "extensions");

    // One comes back in sync, the other is not compared: only the first is resolved.
    Run next =
        check(
            List.of(ingress, legacy),
            result(ingress, DriftObjectResult.State.IN_SYNC),
            result(legacy, DriftObjectResult.State.FAILED).setError("forbidden"));
    assertThat(next.outcome().resolved()).isEqualTo(1);
    assertThat(mapper.open(org, cluster))
        .extracting(DriftFindingRow::apiGroup)
        .containsExactly("extensions");
    assertThat(mapper.unknowns(org, cluster, next.checkId()))
        .extracting(DriftUnknownRow::apiGroup)
        .containsExactly("extensions");
  }

  @Test
  void onlyTheNewestChecksKeepTheirObjectsNotComparedAndOldOnesKeepTheCount() {
    DesiredObject web = desired("apps", "Deployment", "web");
    Run first = check(List.of(web), DriftReport.getDefaultInstance());
    for (int i = 0; i < DriftStore.KEPT_UNKNOWN_CHECKS; i++) {
      check(List.of(web), DriftReport.getDefaultInstance());
    }
    assertThat(unknown(first)).isEmpty();
    assertThat(row(first).unknown()).isEqualTo(1);
    Run latest = check(List.of(web), DriftReport.getDefaultInstance());
    assertThat(unknown(latest)).hasSize(1);
  }
}
