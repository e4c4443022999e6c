package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code policy what-if} against a stand-in for the hub's REST API. */
class PolicyWhatIfCliTest {
  static final String ANSWER =
      "{\"policy\":\"approval\",\"draftSha256\":\"ab\",\"limit\":20,\"found\":3,\"evaluated\":2,"
          + "\"timedOut\":false,\"changed\":[{\"kind\":\"command\",\"subjectId\":\"c-1\","
          + "\"at\":\"2026-11-27T10:00:00Z\",\"recordedVersion\":1,"
          + "\"recordedOutcome\":\"auto_approve\",\"recordedReasons\":[\"scale is auto-approved\"],"
          + "\"draftOutcome\":\"require_approval\",\"draftReasons\":[\"scale requires 1"
          + " approval\"],\"input\":{\"command\":{\"type\":\"scale\"}}}],"
          + "\"inputNotRecorded\":[{\"kind\":\"command\",\"subjectId\":\"c-0\","
          + "\"recordedOutcome\":\"auto_approve\",\"note\":\"input not recorded\"}]}";

  @TempDir Path tmp;
  final FakeHub hub = new FakeHub();

  @AfterEach
  void stop() {
    hub.close();
  }

  @Test
  void sendsTheDraftAndLimitAndListsTheDecisionsThatWouldChange() throws Exception {
    Path draft = tmp.resolve("draft.rego");
    Files.writeString(draft, "package gitopshq.approval\n");
    hub.answer("POST /api/v2/policies/approval/what-if", ANSWER);

    Run.Result r =
        hub.run(tmp, "policy", "what-if", "approval", "--file", draft.toString(), "--limit", "20");

    assertThat(r.code()).as(r.toString()).isZero();
    var sent = hub.received.get("POST /api/v2/policies/approval/what-if");
    assertThat(sent.get("rego").asText()).isEqualTo("package gitopshq.approval\n");
    assertThat(sent.get("limit").asInt()).isEqualTo(20);
    assertThat(r.out())
        .contains("c-1")
        .contains("auto_approve")
        .contains("require_approval")
        .contains("scale requires 1 approval")
        .contains("Evaluated 2 of 3 recorded decision(s) of approval: 1 would change")
        .contains("1 without a recorded input");
  }

  @Test
  void withoutALimitTheHubsDefaultApplies() throws Exception {
    Path draft = tmp.resolve("draft.rego");
    Files.writeString(draft, "package gitopshq.approval\n");
    hub.answer("POST /api/v2/policies/approval/what-if", ANSWER);

    Run.Result r = hub.run(tmp, "policies", "what-if", "approval", "-f", draft.toString());

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(hub.received.get("POST /api/v2/policies/approval/what-if").has("limit")).isFalse();
  }

  @Test
  void aDraftThatDoesNotCompileIsTheHubsFieldError() throws Exception {
    Path draft = tmp.resolve("draft.rego");
    Files.writeString(draft, "package gitopshq.approval\nbroken := {\n");
    hub.answer(
        "POST /api/v2/policies/approval/what-if",
        400,
        "{\"status\":400,\"error\":\"invalid_request\",\"message\":\"policy does not compile\","
            + "\"errors\":[{\"field\":\"rego\",\"reason\":\"gitopshq/approval:2:11: rego_parse_error:"
            + " unexpected eof token\"}]}");

    Run.Result r = hub.run(tmp, "policy", "what-if", "approval", "-f", draft.toString());

    assertThat(r.code()).isNotZero();
    assertThat(r.err()).contains("rego").contains("unexpected eof token");
  }
}
