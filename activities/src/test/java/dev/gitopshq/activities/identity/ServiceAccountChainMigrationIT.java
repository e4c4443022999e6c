package dev.gitopshq.activities.identity;

import static dev.gitopshq.activities.store.MigrationSchema.exec;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.store.MigrationSchema;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * V39 on a database made before it: service accounts made by service accounts (known only from the
 * audit log) get the account that made them and an owner from up their chain, and an approval still
 * open for the last account of a chain gets everyone up the chain behind its requester.
 */
class ServiceAccountChainMigrationIT {
  static final String SCHEMA = "it_sa_chain_migration";
  static MigrationSchema db;
  static final UUID ORG = UUID.randomUUID();
  static final UUID HUMAN = UUID.randomUUID();
  static final UUID SA1 = UUID.randomUUID();
  static final UUID SA2 = UUID.randomUUID();
  static final UUID SA3 = UUID.randomUUID();

  @BeforeAll
  static void migrateAnOldDatabase() throws SQLException {
    db = MigrationSchema.upTo(SCHEMA, "36");
    try (Connection c = db.connection()) {
      exec(c, "insert into organizations (id, slug, name) values (?, 'acme', 'Acme')", ORG);
      exec(
          c,
          "insert into members (id, org_id, email, name, role, created_at)"
              + " values (?, ?, 'h@acme.test', 'H', 'admin', now())",
          HUMAN,
          ORG);
      // Before V39 an account made by an account recorded nobody: no creator, no owner.
      account(c, SA1, HUMAN);
      account(c, SA2, null);
      account(c, SA3, null);
      created(c, SA1, "member", HUMAN);
      created(c, SA2, "service_account", SA1);
      created(c, SA3, "service_account", SA2);
      exec(
          c,
          "insert into approvals (id, org_id, kind, subject_id, requester_id, required_approvers,"
              + " approver_roles, approver_teams, summary, status, created_at, expires_at)"
              + " values ('a1', ?, 'command', ?, ?, 1, '{}', '{}', 'scale', 'open', now(),"
              + " now() + interval '1 day')",
          ORG,
          UUID.randomUUID(),
          SA3.toString());
    }
    db.migrate();
  }

  static void account(Connection c, UUID id, UUID createdBy) throws SQLException {
    exec(
        c,
        "insert into service_accounts (id, org_id, name, scopes, created_by, created_at,"
            + " owner_member_id) values (?, ?, ?, '{commands:create}', ?, now(), ?)",
        id,
        ORG,
        "sa-" + id.toString().substring(0, 8),
        createdBy,
        createdBy);
  }

  static void created(Connection c, UUID account, String actorType, UUID actor)
      throws SQLException {
    exec(
        c,
        "insert into audit_log (org_id, at, actor_type, actor_id, actor_name, action, target_type,"
            + " target_id, details, prev_hash, hash) values (?, now(), ?, ?, 'x',"
            + " 'service_account.created', 'service_account', ?, '{}', repeat('0', 64),"
            + " repeat('0', 64))",
        ORG,
        actorType,
        actor.toString(),
        account.toString());
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Test
  void accountsMadeByAccountsKnowTheirMakerAndAnOwnerFromUpTheChain() throws SQLException {
    try (Connection c = db.connection();
        PreparedStatement p =
            c.prepareStatement(
                "select id, created_by_account, owner_member_id from service_accounts"
                    + " where org_id = ? order by created_at, name")) {
      p.setObject(1, ORG);
      java.util.Map<UUID, UUID[]> rows = new java.util.HashMap<>();
      try (ResultSet r = p.executeQuery()) {
        while (r.next()) {
          rows.put(
              r.getObject(1, UUID.class),
              new UUID[] {r.getObject(2, UUID.class), r.getObject(3, UUID.class)});
        }
      }
      assertThat(rows.get(SA1)).containsExactly(null, HUMAN);
      assertThat(rows.get(SA2)).containsExactly(SA1, HUMAN);
      assertThat(rows.get(SA3)).containsExactly(SA2, HUMAN);
    }
  }

  @Test
  void anOpenApprovalOfTheLastAccountHasEveryoneUpTheChainBehindIt() throws SQLException {
    try (Connection c = db.connection();
        PreparedStatement p =
            c.prepareStatement("select requester_behind from approvals where id = 'a1'")) {
      try (ResultSet r = p.executeQuery()) {
        assertThat(r.next()).isTrue();
        Array behind = r.getArray(1);
        List<String> who = Arrays.asList((String[]) behind.getArray());
        assertThat(who).containsExactlyInAnyOrder(HUMAN.toString(), SA1.toString(), SA2.toString());
      }
    }
  }
}
