package dev.gitopshq.hub.team;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.hub.HubEndpoints;
import dev.gitopshq.hub.HubEndpoints.Endpoint;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Teams and grants: a member or viewer reaches a project or cluster only through a grant of one of
 * their teams, with the grant's role there; without one the object and everything under it is a 404
 * and lists leave it out. Owners and admins reach everything.
 */
class GrantsIT {
  static HubTestSupport hub;

  /** The projects this class made, deleted after it. */
  static final List<String> projects = new ArrayList<>();

  @BeforeAll
  static void start() {
    hub = HubTestSupport.shared();
  }

  /**
   * The shared hub's projects live in the organization every test hub shares, with repositories in
   * this hub's data directory: a row left behind has no repository for a hub process on the same
   * database, and every organization-level change there would fail on it (DatabaseOutageIT).
   */
  @AfterAll
  static void deleteProjects() {
    for (String id : projects) {
      Response r = hub.send("DELETE", "/api/v2/projects/" + id, OWNER_TOKEN, null);
      assertThat(r.status()).as(r.raw()).isEqualTo(204);
    }
  }

  static String suffix() {
    return UUID.randomUUID().toString().substring(0, 8);
  }

  static String team(String name) {
    Response r = hub.post("/api/v2/teams", OWNER_TOKEN, Map.of("name", name));
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    return r.body().get("id").asText();
  }

  static void join(String team, String member) {
    Response r =
        hub.post("/api/v2/teams/" + team + "/members", OWNER_TOKEN, Map.of("memberId", member));
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
  }

  static String grant(Map<String, Object> body) {
    Response r = hub.post("/api/v2/grants", OWNER_TOKEN, body);
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    return r.body().get("id").asText();
  }

  static String project(String name) {
    Response r = hub.post("/api/v2/projects", OWNER_TOKEN, Map.of("name", name));
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    projects.add(r.body().get("id").asText());
    return r.body().get("id").asText();
  }

  static String cluster(String name, Map<String, String> labels) {
    Response r = hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name, "labels", labels));
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    return r.body().get("cluster").get("id").asText();
  }

  /** The member's teams as GET /api/v2/members shows them. */
  static String teamsOf(String member) {
    for (JsonNode m : hub.get("/api/v2/members", OWNER_TOKEN).body().get("items")) {
      if (m.get("id").asText().equals(member)) {
        return m.get("teams").toString();
      }
    }
    throw new AssertionError("no member " + member);
  }

  static List<String> names(Response list) {
    assertThat(list.status()).as(list.raw()).isEqualTo(200);
    return list.body().get("items").findValuesAsText("name");
  }

  @Test
  void teamsHaveMembersWhoseTeamsFollowAndChangesAreAuditedAndAdminOnly() {
    String s = suffix();
    String id = team("sre-" + s);
    String member = hub.newMember("member");
    join(id, member);
    assertThat(teamsOf(member)).contains("sre-" + s);
    Response renamed =
        hub.patch("/api/v2/teams/" + id, OWNER_TOKEN, Map.of("name", "platform-" + s));
    assertThat(renamed.status()).as(renamed.raw()).isEqualTo(200);
    assertThat(renamed.body().get("members").findValuesAsText("memberId")).containsExactly(member);
    assertThat(teamsOf(member)).contains("platform-" + s).doesNotContain("sre-" + s);

    // Teams on a member (PATCH /members) are manual memberships of real teams.
    Response patched =
        hub.patch("/api/v2/members/" + member, OWNER_TOKEN, Map.of("teams", List.of("db-" + s)));
    assertThat(patched.status()).as(patched.raw()).isEqualTo(200);
    assertThat(names(hub.get("/api/v2/teams", OWNER_TOKEN))).contains("db-" + s);
    assertThat(patched.body().get("teams").toString()).contains("db-" + s);
    // They replace the member's manual memberships: the member left platform.
    assertThat(teamsOf(member)).doesNotContain("platform-" + s);
    join(id, member);

    Response dup = hub.post("/api/v2/teams", OWNER_TOKEN, Map.of("name", "db-" + s));
    assertThat(dup.status()).isEqualTo(409);
    Response bad = hub.post("/api/v2/teams", OWNER_TOKEN, Map.of("name", "Not A Name"));
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.body().get("errors").findValuesAsText("field")).contains("name");
    Response badGrant =
        hub.post(
            "/api/v2/grants",
            OWNER_TOKEN,
            Map.of("teamId", "x", "role", "god", "scope", "project"));
    assertThat(badGrant.status()).isEqualTo(400);
    assertThat(badGrant.body().get("errors").findValuesAsText("field"))
        .contains("teamId", "role", "projectId");
    Response badSelector =
        hub.post(
            "/api/v2/grants",
            OWNER_TOKEN,
            Map.of(
                "teamId",
                id,
                "role",
                "member",
                "scope",
                "clusters",
                "selector",
                Map.of(
                    "matchExpressions",
                    List.of(Map.of("key", "tier", "operator", "Near", "values", List.of("a"))))));
    assertThat(badSelector.status()).isEqualTo(400);
    assertThat(badSelector.body().get("errors").findValuesAsText("field"))
        .contains("selector.matchExpressions[0].operator");

    String member2 = hub.memberToken("member");
    assertThat(hub.post("/api/v2/teams", member2, Map.of("name", "mine-" + s)).status())
        .isEqualTo(403);
    assertThat(hub.send("DELETE", "/api/v2/teams/" + id, member2, null).status()).isEqualTo(403);

    assertThat(
            hub.send("DELETE", "/api/v2/teams/" + id + "/members/" + member, OWNER_TOKEN, null)
                .status())
        .isEqualTo(204);
    assertThat(hub.send("DELETE", "/api/v2/teams/" + id, OWNER_TOKEN, null).status())
        .isEqualTo(204);
    assertThat(hub.get("/api/v2/teams/" + id, OWNER_TOKEN).status()).isEqualTo(404);
    assertThat(
            HubTestSupport.count(
                "select count(*) from audit_log where target_id = ? and action in"
                    + " ('team.created', 'team.updated', 'team.member.added',"
                    + " 'team.member.removed', 'team.deleted')",
                id))
        .as("created, renamed, member added twice, removed, deleted")
        .isEqualTo(6);
  }

  @Test
  void aMemberReachesAProjectOnlyThroughAGrantWithTheGrantsRole() {
    String s = suffix();
    String project = project("granted-" + s);
    String other = project("hidden-" + s);
    String memberId = hub.newMember("member");
    String member = hub.tokenOf(memberId);
    String viewerId = hub.newMember("viewer");
    String viewer = hub.tokenOf(viewerId);

    for (String path :
        List.of(
            "/api/v2/projects/" + project,
            "/api/v2/projects/" + project + "/releases",
            "/api/v2/projects/" + project + "/environments",
            "/api/v2/projects/" + project + "/variables",
            "/api/v2/projects/" + project + "/deploy-tokens")) {
      Response r = hub.get(path, member);
      assertThat(r.status()).as(path + " " + r.raw()).isEqualTo(404);
    }
    assertThat(names(hub.get("/api/v2/projects", member))).doesNotContain("granted-" + s);

    String team = team("shop-" + s);
    join(team, memberId);
    join(team, viewerId);
    String readOnly =
        grant(Map.of("teamId", team, "role", "viewer", "scope", "project", "projectId", project));
    assertThat(hub.get("/api/v2/projects/" + project, member).status()).isEqualTo(200);
    assertThat(hub.get("/api/v2/projects/" + project + "/releases", member).status())
        .isEqualTo(200);
    assertThat(hub.get("/api/v2/projects/" + other, member).status()).isEqualTo(404);
    assertThat(names(hub.get("/api/v2/projects", member)))
        .contains("granted-" + s)
        .doesNotContain("hidden-" + s);
    // A viewer grant reads, it does not change.
    Response denied = hub.patch("/api/v2/projects/" + project, member, Map.of("description", "x"));
    assertThat(denied.status()).as(denied.raw()).isEqualTo(403);

    // A member grant lets a member change the project; an organization viewer stays read-only.
    grant(Map.of("teamId", team, "role", "member", "scope", "project", "projectId", project));
    Response changed =
        hub.patch("/api/v2/projects/" + project, member, Map.of("description", "ours"));
    assertThat(changed.status()).as(changed.raw()).isEqualTo(200);
    assertThat(hub.get("/api/v2/projects/" + project, viewer).status()).isEqualTo(200);
    assertThat(
            hub.patch("/api/v2/projects/" + project, viewer, Map.of("description", "v")).status())
        .isEqualTo(403);
    // An admin grant gives project admin inside that project only.
    assertThat(
            hub.post("/api/v2/projects/" + project + "/deploy-tokens", member, Map.of("name", "a"))
                .status())
        .isEqualTo(403);
    grant(Map.of("teamId", team, "role", "admin", "scope", "project", "projectId", project));
    Response token =
        hub.post("/api/v2/projects/" + project + "/deploy-tokens", member, Map.of("name", "a"));
    assertThat(token.status()).as(token.raw()).isEqualTo(201);
    assertThat(hub.post("/api/v2/teams", member, Map.of("name", "x-" + s)).status()).isEqualTo(403);

    // Revoking the grants hides the project again.
    for (JsonNode g : hub.get("/api/v2/grants?teamId=" + team, OWNER_TOKEN).body().get("items")) {
      assertThat(
              hub.send("DELETE", "/api/v2/grants/" + g.get("id").asText(), OWNER_TOKEN, null)
                  .status())
          .isEqualTo(204);
    }
    assertThat(readOnly).isNotBlank();
    assertThat(hub.get("/api/v2/projects/" + project, member).status()).isEqualTo(404);
    // Owners and admins need no grant.
    String admin = hub.ungrantedMemberToken("admin");
    assertThat(hub.get("/api/v2/projects/" + other, admin).status()).isEqualTo(200);
    assertThat(names(hub.get("/api/v2/projects", admin))).contains("hidden-" + s);
  }

  @Test
  void aGrantOnEveryProjectCoversProjectsMadeLater() {
    String s = suffix();
    String memberId = hub.newMember("member");
    String member = hub.tokenOf(memberId);
    String team = team("all-" + s);
    join(team, memberId);
    grant(Map.of("teamId", team, "role", "member", "scope", "projects"));
    String later = project("later-" + s);
    assertThat(hub.get("/api/v2/projects/" + later, member).status()).isEqualTo(200);
    assertThat(names(hub.get("/api/v2/projects", member))).contains("later-" + s);
  }

  @Test
  void aMemberSeesAndCommandsTheClustersAGrantsSelectorMatches() {
    String s = suffix();
    String dev = cluster("dev-" + s, Map.of("tier", "dev", "run", s));
    String prod = cluster("prod-" + s, Map.of("tier", "prod", "run", s));
    String memberId = hub.newMember("member");
    String member = hub.tokenOf(memberId);
    assertThat(hub.get("/api/v2/clusters/" + dev, member).status()).isEqualTo(404);
    assertThat(names(hub.get("/api/v2/clusters?label=run:" + s, member))).isEmpty();

    String team = team("devs-" + s);
    join(team, memberId);
    grant(
        Map.of(
            "teamId",
            team,
            "role",
            "member",
            "scope",
            "clusters",
            "selector",
            Map.of("matchLabels", Map.of("tier", "dev"))));
    assertThat(hub.get("/api/v2/clusters/" + dev, member).status()).isEqualTo(200);
    assertThat(hub.get("/api/v2/clusters/" + prod, member).status()).isEqualTo(404);
    assertThat(hub.get("/api/v2/clusters/" + prod + "/commands", member).status()).isEqualTo(404);
    assertThat(hub.get("/api/v2/clusters/" + dev + "/commands", member).status()).isEqualTo(200);
    assertThat(names(hub.get("/api/v2/clusters?label=run:" + s, member)))
        .containsExactly("dev-" + s);
  }

  static List<Endpoint> endpoints(String prefix) {
    return HubEndpoints.under(hub, prefix);
  }

  /** The pattern with its first variable {@code first} and every other one a plausible value. */
  static String fill(String pattern, String first) {
    boolean[] firstDone = {false};
    return HubEndpoints.variables(
        pattern,
        variable -> {
          String value = firstDone[0] ? UUID.randomUUID().toString() : first;
          firstDone[0] = true;
          return value;
        });
  }

  @Test
  void everyProjectAndClusterEndpointAnswers404ToAMemberWithoutAGrantAndChangesNothing() {
    String s = suffix();
    String project = project("matrix-" + s);
    String cluster = cluster("matrix-" + s, Map.of("matrix", s));
    assertThat(
            hub.post(
                    "/api/v2/projects/" + project + "/deploy-tokens",
                    OWNER_TOKEN,
                    Map.of("name", "t"))
                .status())
        .isEqualTo(201);
    // A command on that cluster: it is the cluster's, so it is not there either.
    HubTestSupport.exec(
        "update clusters set capabilities = '{observe,argocd.write}' where id = ?::uuid", cluster);
    Response command =
        hub.post(
            "/api/v2/clusters/" + cluster + "/commands",
            OWNER_TOKEN,
            Map.of(
                "type",
                "sync",
                "target",
                Map.of("namespace", "argocd", "kind", "Application", "name", "matrix-app")));
    assertThat(command.status()).as(command.raw()).isBetween(200, 202);
    String commandId = command.body().get("id").asText();
    String before =
        hub.get("/api/v2/projects/" + project, OWNER_TOKEN).raw()
            + hub.get("/api/v2/clusters/" + cluster, OWNER_TOKEN)
                .raw()
                .replaceAll("\"lastSeenAt\":[^,]*,", "");
    List<String> refusals = new ArrayList<>();
    List<String> callers = new ArrayList<>();
    int called = 0;
    for (String role : List.of("member", "viewer")) {
      String memberId = hub.newMember(role);
      callers.add(memberId);
      String token = hub.tokenOf(memberId);
      for (String prefix :
          List.of("/api/v2/projects/{", "/api/v2/clusters/{", "/api/v2/commands/{")) {
        String object =
            prefix.contains("projects")
                ? project
                : prefix.contains("commands") ? commandId : cluster;
        for (Endpoint e : endpoints(prefix)) {
          String path = fill(e.pattern(), object);
          Object body = e.method().equals("GET") || e.method().equals("DELETE") ? null : Map.of();
          Response r = hub.send(e.method(), path, token, body);
          called++;
          if (r.status() != 404) {
            refusals.add(role + " " + e.method() + " " + e.pattern() + " -> " + r.status());
          }
          assertThat(r.raw()).as(e.toString()).doesNotContain("matrix-" + s);
        }
      }
    }
    assertThat(refusals).as("endpoints that did not answer 404").isEmpty();
    assertThat(called).as("project and cluster endpoints").isGreaterThan(60);
    String after =
        hub.get("/api/v2/projects/" + project, OWNER_TOKEN).raw()
            + hub.get("/api/v2/clusters/" + cluster, OWNER_TOKEN)
                .raw()
                .replaceAll("\"lastSeenAt\":[^,]*,", "");
    assertThat(after).isEqualTo(before);
    // Nothing the callers did was audited: they changed nothing.
    for (String caller : callers) {
      assertThat(HubTestSupport.count("select count(*) from audit_log where actor_id = ?", caller))
          .as("audit entries by " + caller)
          .isZero();
    }
  }
}
