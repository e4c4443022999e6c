package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Freeze windows that hold commands, and the hub's refusal of a feature the plan lacks, from the
 * command line against a stand-in for the hub's REST API.
 */
class FreezeAndPlanCliTest {
  static final String PROJECT = "11111111-1111-1111-1111-111111111111";

  @TempDir Path tmp;
  final FakeHub hub = new FakeHub();

  @AfterEach
  void stop() {
    hub.close();
  }

  @Test
  void aWindowCanHoldCommandTypesAndTheListShowsThem() {
    hub.answer(
        "POST /api/v2/freeze-windows",
        "{\"id\":\"w-1\",\"environment\":\"production\",\"startsAt\":\"2026-12-18T00:00:00Z\","
            + "\"endsAt\":\"2026-12-27T00:00:00Z\",\"active\":false,\"reason\":\"year-end\","
            + "\"commandTypes\":[\"scale\",\"restart\"]}");

    Run.Result r =
        hub.run(
            tmp,
            "freeze-windows",
            "create",
            "--environment",
            "production",
            "--starts",
            "2026-12-18T00:00:00Z",
            "--ends",
            "2026-12-27T00:00:00Z",
            "--reason",
            "year-end",
            "--command-types",
            "scale,restart");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(hub.received.get("POST /api/v2/freeze-windows").get("commandTypes").toString())
        .isEqualTo("[\"scale\",\"restart\"]");
    assertThat(r.out()).contains("COMMANDS").contains("scale,restart");
  }

  @Test
  void aWindowWithoutCommandTypesSendsNone() {
    hub.answer("POST /api/v2/freeze-windows", "{\"id\":\"w-2\",\"reason\":\"x\"}");

    Run.Result r =
        hub.run(
            tmp,
            "freeze-windows",
            "create",
            "--starts",
            "2026-12-18T00:00:00Z",
            "--ends",
            "2026-12-27T00:00:00Z",
            "--reason",
            "x");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(hub.received.get("POST /api/v2/freeze-windows").has("commandTypes")).isFalse();
  }

  @Test
  void anUnknownCommandTypeIsTheHubsFieldError() {
    hub.answer(
        "POST /api/v2/freeze-windows",
        400,
        "{\"status\":400,\"error\":\"invalid_request\",\"message\":\"commandTypes[0]: must be"
            + " 'all' or a command type: sync, rollback, restart, scale, refresh, resolve-drift\","
            + "\"errors\":[{\"field\":\"commandTypes[0]\",\"reason\":\"must be 'all' or a command"
            + " type: sync, rollback, restart, scale, refresh, resolve-drift\"}]}");

    Run.Result r =
        hub.run(
            tmp,
            "freeze",
            "create",
            "--starts",
            "2026-12-18T00:00:00Z",
            "--ends",
            "2026-12-27T00:00:00Z",
            "--reason",
            "x",
            "--command-types",
            "reboot");

    assertThat(r.code()).isNotZero();
    assertThat(r.err()).contains("commandTypes[0]: must be 'all' or a command type");
  }

  @Test
  void watchingAFrozenCommandEndsWithTheWindowThatHoldsIt() {
    hub.answer(
        "GET /api/v2/commands/c-9",
        "{\"id\":\"c-9\",\"status\":\"frozen\",\"statusDetail\":\"cluster prod-eu"
            + " (environment production) is frozen for scale commands until"
            + " 2026-12-27T00:00:00Z: year-end freeze\",\"timeline\":[{\"seq\":1,"
            + "\"status\":\"frozen\",\"actor\":\"policy freeze v2\",\"detail\":\"frozen\"}]}");

    Run.Result r = hub.run(tmp, "commands", "watch", "c-9", "--interval", "1");

    assertThat(r.code()).as(r.toString()).isEqualTo(ExitCode.FAILED);
    assertThat(r.out()).contains("Command c-9 frozen").contains("year-end freeze");
  }

  @Test
  void aFeatureThePlanLacksPrintsTheHubsMessageAndExitsForbidden() {
    hub.answer(
        "GET /api/v2/projects", "{\"items\":[{\"id\":\"" + PROJECT + "\",\"name\":\"shop\"}]}");
    hub.answer(
        "POST /api/v2/projects/" + PROJECT + "/releases/4/promote",
        403,
        "{\"status\":403,\"error\":\"feature_not_in_plan\",\"message\":\"FeaturePromotion is not"
            + " in the organization's plan free; it needs plan pro or higher\","
            + "\"feature\":\"FeaturePromotion\",\"plan\":\"free\"}");

    Run.Result r = hub.run(tmp, "promote", "shop", "4");

    assertThat(r.code()).isEqualTo(ExitCode.FORBIDDEN);
    assertThat(r.err())
        .contains("FeaturePromotion is not in the organization's plan free; it needs plan pro");
  }
}
