package dev.gitopshq.activities.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** A decision that is not well-formed never becomes an approval. */
class PolicyDecisionTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String s) {
    try {
      return JSON.readTree(s);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }

  @Test
  void mapsAWellFormedDecision() {
    PolicyDecision d =
        PolicyDecision.of(
            "approval",
            4,
            json(
                "{\"outcome\":\"require_approval\",\"required_approvers\":2,"
                    + "\"approver_roles\":[\"admin\"],\"approver_teams\":[\"sre\"],"
                    + "\"reasons\":[\"scale requires 2 approvals\"]}"));
    assertThat(d.outcome()).isEqualTo(PolicyDecision.Outcome.REQUIRE_APPROVAL);
    assertThat(d.requiredApprovers()).isEqualTo(2);
    assertThat(d.policyVersion()).isEqualTo(4);
    assertThat(d.approverRoles()).containsExactly("admin");
    assertThat(d.approverTeams()).containsExactly("sre");
    assertThat(d.reasons()).containsExactly("scale requires 2 approvals");
    assertThat(d.rawResult().get("outcome").asText()).isEqualTo("require_approval");
  }

  @Test
  void anUnknownOrMissingOutcomeFailsClosed() {
    assertThatThrownBy(
            () ->
                PolicyDecision.of(
                    "approval", 1, json("{\"outcome\":\"approve\",\"required_approvers\":0}")))
        .isInstanceOf(PolicyEvaluationException.class)
        .hasMessageContaining("outcome \"approve\" is not one of");
    assertThatThrownBy(() -> PolicyDecision.of("approval", 1, json("{\"required_approvers\":0}")))
        .isInstanceOf(PolicyEvaluationException.class);
    assertThatThrownBy(() -> PolicyDecision.of("approval", 1, null))
        .isInstanceOf(PolicyEvaluationException.class);
    assertThatThrownBy(() -> PolicyDecision.of("approval", 1, json("true")))
        .isInstanceOf(PolicyEvaluationException.class);
  }

  @Test
  void requireApprovalNeedsAtLeastOneApproverAndSomeoneToApprove() {
    assertThatThrownBy(
            () ->
                PolicyDecision.of(
                    "approval",
                    1,
                    json(
                        "{\"outcome\":\"require_approval\",\"required_approvers\":0,\"approver_roles\":[\"admin\"]}")))
        .hasMessageContaining("at least 1");
    assertThatThrownBy(
            () ->
                PolicyDecision.of(
                    "approval",
                    1,
                    json("{\"outcome\":\"require_approval\",\"required_approvers\":1}")))
        .hasMessageContaining("no approver_roles and no approver_teams");
    assertThatThrownBy(
            () ->
                PolicyDecision.of(
                    "approval",
                    1,
                    json("{\"outcome\":\"deny\",\"required_approvers\":0,\"reasons\":[1]}")))
        .hasMessageContaining("reasons holds a value that is not a string");
  }

  @Test
  void approversAreZeroUnlessApprovalIsRequired() {
    PolicyDecision d =
        PolicyDecision.of(
            "approval", 1, json("{\"outcome\":\"auto_approve\",\"required_approvers\":3}"));
    assertThat(d.requiredApprovers()).isZero();
    assertThat(d.reasons()).isEmpty();
  }
}
