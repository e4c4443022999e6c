package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Teams and grants from the command line, against a stand-in for the hub's REST API. */
class TeamsCliTest {
  static final String TEAM = "22222222-2222-2222-2222-222222222222";
  static final String PROJECT = "33333333-3333-3333-3333-333333333333";
  static final String MEMBER = "44444444-4444-4444-4444-444444444444";

  @TempDir Path tmp;
  final FakeHub hub = new FakeHub();

  @AfterEach
  void stop() {
    hub.close();
  }

  @Test
  void aMemberIsAddedToATeamByEmailAndTeamName() {
    hub.answer("GET /api/v2/teams", "{\"items\":[{\"id\":\"" + TEAM + "\",\"name\":\"sre\"}]}");
    hub.answer(
        "GET /api/v2/members",
        "{\"items\":[{\"id\":\"" + MEMBER + "\",\"email\":\"ana@acme.test\"}]}");
    hub.answer("POST /api/v2/teams/" + TEAM + "/members", "{\"id\":\"" + TEAM + "\"}");

    Run.Result r = hub.run(tmp, "teams", "add-member", "sre", "ana@acme.test");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(hub.received.get("POST /api/v2/teams/" + TEAM + "/members").get("memberId").asText())
        .isEqualTo(MEMBER);
  }

  @Test
  void aGrantOnClustersTakesAKubectlSelectorAndOneOnAProjectItsName() {
    hub.answer("GET /api/v2/teams", "{\"items\":[{\"id\":\"" + TEAM + "\",\"name\":\"sre\"}]}");
    hub.answer(
        "GET /api/v2/projects", "{\"items\":[{\"id\":\"" + PROJECT + "\",\"name\":\"shop\"}]}");
    hub.answer(
        "POST /api/v2/grants",
        "{\"id\":\"g-1\",\"team\":\"sre\",\"role\":\"member\",\"scope\":\"clusters\","
            + "\"selector\":{\"matchLabels\":{\"tier\":\"dev\"}}}");

    Run.Result r =
        hub.run(
            tmp, "grants", "create", "--team", "sre", "--role", "member", "--clusters", "tier=dev");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(hub.received.get("POST /api/v2/grants").toString())
        .isEqualTo(
            "{\"teamId\":\""
                + TEAM
                + "\",\"role\":\"member\",\"scope\":\"clusters\","
                + "\"selector\":{\"matchLabels\":{\"tier\":\"dev\"}}}");
    assertThat(r.out()).contains("tier=dev");

    Run.Result p =
        hub.run(tmp, "grants", "create", "--team", "sre", "--role", "viewer", "--project", "shop");
    assertThat(p.code()).as(p.toString()).isZero();
    assertThat(hub.received.get("POST /api/v2/grants").get("projectId").asText())
        .isEqualTo(PROJECT);
    assertThat(hub.received.get("POST /api/v2/grants").get("scope").asText()).isEqualTo("project");
  }
}
