package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code orgs} (instance administration) against a stand-in for the hub's REST API. */
class OrgsCliTest {
  static final String ORG = "55555555-5555-5555-5555-555555555555";
  static final String LIST =
      "{\"items\":[{\"id\":\""
          + ORG
          + "\",\"slug\":\"acme\",\"name\":\"Acme\",\"plan\":\"free\",\"operator\":false,"
          + "\"members\":3,\"clusters\":2}]}";

  @TempDir Path tmp;
  final FakeHub hub = new FakeHub();

  @AfterEach
  void stop() {
    hub.close();
  }

  @Test
  void listShowsEachOrganizationsPlan() {
    hub.answer("GET /api/v2/orgs", LIST);

    Run.Result r = hub.run(tmp, "orgs", "list");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("acme").contains("free");
  }

  @Test
  void setPlanPutsThePlanOnTheOrganizationNamedBySlug() {
    hub.answer("GET /api/v2/orgs", LIST);
    hub.answer(
        "PUT /api/v2/orgs/" + ORG + "/plan",
        "{\"id\":\"" + ORG + "\",\"slug\":\"acme\",\"name\":\"Acme\",\"plan\":\"pro\"}");

    Run.Result r = hub.run(tmp, "orgs", "set-plan", "acme", "pro");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(hub.received.get("PUT /api/v2/orgs/" + ORG + "/plan").toString())
        .isEqualTo("{\"plan\":\"pro\"}");
    assertThat(r.out()).containsPattern("Plan:\\s+pro");
  }

  @Test
  void anUnknownOrganizationIsNotFound() {
    hub.answer("GET /api/v2/orgs", LIST);

    Run.Result r = hub.run(tmp, "orgs", "set-plan", "nope", "pro");

    assertThat(r.code()).isEqualTo(ExitCode.NOT_FOUND);
    assertThat(r.err()).contains("no organization 'nope'");
  }
}
