package dev.gitopshq.activities.identity;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * V55 and V56 on a database made before them: member team tags become teams with their members (SSO
 * members' memberships marked 'oidc'), and every organization with members gets a team 'everyone'
 * with member on every project and every cluster, so no one loses access.
 */
class TeamsMigrationIT {
  static final String SCHEMA = "it_teams_migration";
  static HikariDataSource db;
  static final UUID ORG = UUID.randomUUID();
  static final UUID EMPTY_ORG = UUID.randomUUID();
  static final UUID ALICE = UUID.randomUUID();
  static final UUID BOB = UUID.randomUUID();
  static final UUID CAROL = UUID.randomUUID();

  @BeforeAll
  static void migrateAnOldDatabase() throws SQLException {
    String url =
        System.getenv()
            .getOrDefault("GITOPSHQ_TEST_DB_URL", "jdbc:postgresql://127.0.0.1:5432/gitopshq_test");
    db = new HikariDataSource();
    db.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "currentSchema=" + SCHEMA);
    db.setUsername(System.getenv().getOrDefault("GITOPSHQ_TEST_DB_USER", "gitopshq"));
    db.setPassword(System.getenv().getOrDefault("GITOPSHQ_TEST_DB_PASSWORD", "gitopshq"));
    db.setMaximumPoolSize(2);
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute("drop schema if exists " + SCHEMA + " cascade");
    }
    Flyway.configure().dataSource(db).schemas(SCHEMA).target("52").load().migrate();
    try (Connection c = db.getConnection()) {
      exec(c, "insert into organizations (id, slug, name) values (?, 'acme', 'Acme')", ORG);
      exec(c, "insert into organizations (id, slug, name) values (?, 'empty', 'E')", EMPTY_ORG);
      exec(
          c,
          "insert into members (id, org_id, email, name, role, teams, created_at)"
              + " values (?, ?, 'alice@acme.test', 'Alice', 'member', '{sre,ops}', now())",
          ALICE,
          ORG);
      exec(
          c,
          "insert into members (id, org_id, email, name, role, teams, created_at, oidc_issuer,"
              + " oidc_subject) values (?, ?, 'bob@acme.test', 'Bob', 'viewer', '{sre}', now(),"
              + " 'https://idp.test', 'bob')",
          BOB,
          ORG);
      exec(
          c,
          "insert into members (id, org_id, email, name, role, teams, created_at, removed_at)"
              + " values (?, ?, 'carol@acme.test', 'Carol', 'member', '{sre,gone}', now(), now())",
          CAROL,
          ORG);
      exec(
          c,
          "insert into projects (id, org_id, name, created_by, created_at, updated_at)"
              + " values (gen_random_uuid(), ?, 'shop', 'test', now(), now())",
          ORG);
    }
    Flyway.configure().dataSource(db).schemas(SCHEMA).load().migrate();
  }

  static void exec(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement p = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        p.setObject(i + 1, args[i]);
      }
      p.executeUpdate();
    }
  }

  static List<String> rows(String sql, Object... args) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = db.getConnection();
        PreparedStatement p = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        p.setObject(i + 1, args[i]);
      }
      try (ResultSet r = p.executeQuery()) {
        int n = r.getMetaData().getColumnCount();
        while (r.next()) {
          List<String> cols = new ArrayList<>();
          for (int i = 1; i <= n; i++) {
            cols.add(String.valueOf(r.getObject(i)));
          }
          out.add(String.join(" ", cols));
        }
      }
    }
    return out;
  }

  static List<String> teamsOf(UUID member) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement p = c.prepareStatement("select teams from members where id = ?")) {
      p.setObject(1, member);
      try (ResultSet r = p.executeQuery()) {
        r.next();
        return Arrays.asList((String[]) r.getArray(1).getArray());
      }
    }
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Test
  void teamTagsBecomeTeamsWithTheirLiveMembersAndSsoMembershipsAreMarkedOidc() throws SQLException {
    assertThat(rows("select name from teams where org_id = ? order by name", ORG))
        .containsExactly("everyone", "ops", "sre");
    assertThat(
            rows(
                "select t.name, m.email, tm.source from team_members tm"
                    + " join teams t on t.org_id = tm.org_id and t.id = tm.team_id"
                    + " join members m on m.id = tm.member_id"
                    + " where tm.org_id = ? and t.name <> 'everyone' order by 1, 2",
                ORG))
        .containsExactly(
            "ops alice@acme.test manual", "sre alice@acme.test manual", "sre bob@acme.test oidc");
  }

  @Test
  void everyOrganizationWithMembersGetsEveryoneWithMemberOnEveryProjectAndCluster()
      throws SQLException {
    assertThat(
            rows(
                "select m.email from team_members tm join teams t on t.id = tm.team_id"
                    + " join members m on m.id = tm.member_id"
                    + " where tm.org_id = ? and t.name = 'everyone' order by 1",
                ORG))
        .containsExactly("alice@acme.test", "bob@acme.test");
    assertThat(
            rows(
                "select g.role, g.scope, g.project_id, g.selector::text from grants g"
                    + " where g.org_id = ? order by g.scope",
                ORG))
        .containsExactly("member clusters null {}", "member projects null null");
    assertThat(rows("select name from teams where org_id = ?", EMPTY_ORG)).isEmpty();
    assertThat(teamsOf(ALICE)).containsExactly("everyone", "ops", "sre");
    assertThat(teamsOf(BOB)).containsExactly("everyone", "sre");
  }

  @Test
  void membersTeamsFollowMembershipsRenamesAndDeletions() throws SQLException {
    UUID team = UUID.randomUUID();
    try (Connection c = db.getConnection()) {
      exec(
          c,
          "insert into teams (id, org_id, name, created_at) values (?, ?, 'payments', now())",
          team,
          ORG);
      exec(
          c,
          "insert into team_members (org_id, team_id, member_id, source, created_at)"
              + " values (?, ?, ?, 'manual', now())",
          ORG,
          team,
          BOB);
      assertThat(teamsOf(BOB)).containsExactly("everyone", "payments", "sre");
      exec(c, "update teams set name = 'billing' where id = ?", team);
      assertThat(teamsOf(BOB)).containsExactly("billing", "everyone", "sre");
      exec(c, "delete from teams where id = ?", team);
      assertThat(teamsOf(BOB)).containsExactly("everyone", "sre");
    }
  }
}
