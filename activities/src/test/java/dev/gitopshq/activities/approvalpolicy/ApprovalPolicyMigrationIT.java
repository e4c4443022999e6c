package dev.gitopshq.activities.approvalpolicy;

import static dev.gitopshq.activities.store.MigrationSchema.exec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.store.MigrationSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * V50 on a database made before it: each cluster's bound approval settings become one approval
 * policy named cluster-&lt;cluster name&gt;, attached to that cluster by name with the same rules,
 * so every cluster is governed as before; clusters without settings get no policy.
 */
class ApprovalPolicyMigrationIT {
  static final String SCHEMA = "it_approval_policy_migration";
  static MigrationSchema db;
  static final UUID ORG = UUID.randomUUID();
  static final UUID PROD = UUID.randomUUID();
  static final UUID LONG = UUID.randomUUID();
  static final UUID DEV = UUID.randomUUID();
  static final String LONG_NAME = "a-cluster-with-a-name-long-enough-to-need-cutting-down-x9";

  @BeforeAll
  static void migrateAnOldDatabase() throws SQLException {
    db = MigrationSchema.upTo(SCHEMA, "39");
    try (Connection c = db.connection()) {
      exec(c, "insert into organizations (id, slug, name) values (?, 'acme', 'Acme')", ORG);
      cluster(c, PROD, "prod-eu");
      cluster(c, LONG, LONG_NAME);
      cluster(c, DEV, "dev");
      exec(
          c,
          "insert into cluster_approval_policies (org_id, cluster_id, require_approval,"
              + " auto_approve, required_approvers, approver_roles, approver_teams,"
              + " break_glass_allowed, break_glass_roles, updated_by, updated_at) values"
              + " (?, ?, '{rollback,scale}', '{sync}', 2, '{owner}', '{sre}', true, '{owner}',"
              + " 'ana@acme.test', '2026-01-02T03:04:05Z')",
          ORG,
          PROD);
      exec(
          c,
          "insert into cluster_approval_policies (org_id, cluster_id, require_approval,"
              + " auto_approve, required_approvers, approver_roles, approver_teams,"
              + " break_glass_allowed, break_glass_roles, updated_by, updated_at) values"
              + " (?, ?, '{restart}', '{}', 1, '{admin,owner}', '{}', false, '{admin,owner}',"
              + " 'bo@acme.test', now())",
          ORG,
          LONG);
    }
    db.migrate();
  }

  static void cluster(Connection c, UUID id, String name) throws SQLException {
    exec(
        c,
        "insert into clusters (id, org_id, name, created_by, created_at, updated_at)"
            + " values (?, ?, ?, 'test', now(), now())",
        id,
        ORG,
        name);
  }

  @AfterAll
  static void close() {
    db.close();
  }

  /** name -> [clusters, require_approval, auto_approve, required, roles, teams, bg, bg roles]. */
  static Map<String, List<Object>> policies() throws SQLException {
    Map<String, List<Object>> out = new LinkedHashMap<>();
    try (Connection c = db.connection();
        PreparedStatement p =
            c.prepareStatement(
                "select name, clusters, require_approval, auto_approve, required_approvers,"
                    + " approver_roles, approver_teams, break_glass_allowed, break_glass_roles,"
                    + " selector, updated_by from approval_policies where org_id = ? order by name")) {
      p.setObject(1, ORG);
      try (ResultSet r = p.executeQuery()) {
        while (r.next()) {
          out.put(
              r.getString(1),
              Arrays.asList(
                  list(r, 2),
                  list(r, 3),
                  list(r, 4),
                  r.getInt(5),
                  list(r, 6),
                  list(r, 7),
                  r.getBoolean(8),
                  list(r, 9),
                  r.getString(10),
                  r.getString(11)));
        }
      }
    }
    return out;
  }

  static List<String> list(ResultSet r, int col) throws SQLException {
    return Arrays.asList((String[]) r.getArray(col).getArray());
  }

  @Test
  void eachClustersSettingsBecomeOnePolicyAttachedToItByNameWithTheSameRules() throws SQLException {
    Map<String, List<Object>> p = policies();
    String longPolicy =
        p.keySet().stream().filter(n -> n.startsWith("cluster-a-")).findFirst().orElseThrow();
    assertThat(p.keySet()).containsExactlyInAnyOrder("cluster-prod-eu", longPolicy);
    assertThat(p.get("cluster-prod-eu"))
        .containsExactly(
            List.of("prod-eu"),
            List.of("rollback", "scale"),
            List.of("sync"),
            2,
            List.of("owner"),
            List.of("sre"),
            true,
            List.of("owner"),
            null,
            "ana@acme.test");
    // The long name is cut so the policy's name stays a DNS label of at most 63 characters.
    assertThat(longPolicy).hasSizeLessThanOrEqualTo(63).startsWith("cluster-a-cluster-with");
    assertThat(p.get(longPolicy).get(0)).isEqualTo(List.of(LONG_NAME));
    assertThat(p.get(longPolicy).get(1)).isEqualTo(List.of("restart"));
  }

  @Test
  void theResolverFindsTheMigratedPolicyInForceAndNoneForAClusterWithoutSettings()
      throws SQLException {
    List<ApprovalPolicyRow> rows =
        policies().entrySet().stream()
            .map(
                e ->
                    new ApprovalPolicyRow(
                        UUID.randomUUID(),
                        ORG,
                        e.getKey(),
                        "",
                        List.of(),
                        List.of(),
                        1,
                        List.of(),
                        List.of(),
                        false,
                        List.of(),
                        castList(e.getValue().get(0)),
                        null,
                        "",
                        null,
                        "",
                        null))
            .toList();
    PolicyInForce prod =
        Precedence.resolve(rows, new Precedence.Target("prod-eu", Map.of())).orElseThrow();
    assertThat(prod.policy().name()).isEqualTo("cluster-prod-eu");
    assertThat(prod.attachedBy()).isEqualTo("name");
    assertThat(Precedence.resolve(rows, new Precedence.Target("dev", Map.of()))).isEmpty();
  }

  @SuppressWarnings("unchecked")
  static List<String> castList(Object o) {
    return (List<String>) o;
  }

  @Test
  void theOldTableIsGone() throws SQLException {
    try (Connection c = db.connection();
        PreparedStatement p =
            c.prepareStatement(
                "select count(*) from information_schema.tables where table_schema = ?"
                    + " and table_name = 'cluster_approval_policies'")) {
      p.setString(1, SCHEMA);
      try (ResultSet r = p.executeQuery()) {
        r.next();
        assertThat(r.getInt(1)).isZero();
      }
    }
  }
}
