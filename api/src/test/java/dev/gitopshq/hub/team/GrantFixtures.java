package dev.gitopshq.hub.team;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.HubTestSupport.Response;
import java.util.Map;
import java.util.UUID;

/**
 * An organization of a test's own on the shared hub, with its owner's token: members, teams and
 * grants made there leave the bootstrap organization (which other tests and hub processes share) as
 * it was.
 */
final class GrantFixtures {
  final HubTestSupport hub;
  final String slug;
  final String orgId;
  final String owner;

  GrantFixtures(HubTestSupport hub, String prefix) {
    this.hub = hub;
    this.slug = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    JsonNode created = hub.createOrg(slug);
    this.orgId = created.get("org").get("id").asText();
    this.owner = created.get("ownerToken").asText();
  }

  static String id(Response r, int status) {
    assertThat(r.status()).as(r.raw()).isEqualTo(status);
    return r.body().get("id").asText();
  }

  /** A new member of the organization with this organization role: their id. */
  String member(String role) {
    String email = role + "-" + UUID.randomUUID().toString().substring(0, 8) + "@example.com";
    return id(
        hub.post(
            "/api/v2/members",
            owner,
            Map.of("email", email, "name", role + " " + email, "role", role)),
        201);
  }

  /** A new API token of the member. */
  String token(String memberId) {
    Response t = hub.post("/api/v2/members/" + memberId + "/tokens", owner, Map.of("name", "t"));
    assertThat(t.status()).as(t.raw()).isEqualTo(201);
    return t.body().get("token").asText();
  }

  /** A new team with these members: its id. */
  String team(String name, String... members) {
    String id = id(hub.post("/api/v2/teams", owner, Map.of("name", name)), 201);
    for (String m : members) {
      Response r = hub.post("/api/v2/teams/" + id + "/members", owner, Map.of("memberId", m));
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
    }
    return id;
  }

  /** A grant of {@code role} on one project. */
  void projectGrant(String team, String role, String project) {
    id(
        hub.post(
            "/api/v2/grants",
            owner,
            Map.of("teamId", team, "role", role, "scope", "project", "projectId", project)),
        201);
  }

  /** A grant of {@code role} on the clusters whose labels include {@code labels}: its id. */
  String clusterGrant(String team, String role, Map<String, String> labels) {
    return id(
        hub.post(
            "/api/v2/grants",
            owner,
            Map.of(
                "teamId",
                team,
                "role",
                role,
                "scope",
                "clusters",
                "selector",
                Map.of("matchLabels", labels))),
        201);
  }

  String project(String name) {
    return id(hub.post("/api/v2/projects", owner, Map.of("name", name)), 201);
  }

  String cluster(String name, Map<String, String> labels) {
    Response r = hub.post("/api/v2/clusters", owner, Map.of("name", name, "labels", labels));
    assertThat(r.status()).as(r.raw()).isEqualTo(201);
    return r.body().get("cluster").get("id").asText();
  }

  /**
   * The answer's status and body with {@code id} written as {@code <id>}: an object outside the
   * caller's grants must answer exactly as an unknown id does.
   */
  static String shape(Response r, String id) {
    return r.status() + " " + r.raw().replace(id, "<id>");
  }
}
