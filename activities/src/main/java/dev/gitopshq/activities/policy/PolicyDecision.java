package dev.gitopshq.activities.policy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * An approval decision from the {@code gitopshq.approval} package (or any package with the same
 * decision document), checked for shape. A decision that is not well-formed is refused with a
 * {@link PolicyEvaluationException}: a policy mistake must never turn into an approval.
 *
 * @param policyName the policy that decided, e.g. {@code approval}
 * @param policyVersion the version that decided, as OPA reported it with the decision
 * @param outcome what happens to the command
 * @param requiredApprovers distinct eligible approvals needed; 0 unless {@link
 *     Outcome#REQUIRE_APPROVAL}, then at least 1
 * @param approverRoles roles whose members may approve (or review a break-glass)
 * @param approverTeams teams whose members may approve
 * @param reasons sentences for people: why this outcome
 * @param rawResult the decision document exactly as OPA returned it
 * @param policySha256 the SHA-256 of the policy text that produced it (read from the same
 *     evaluation); null only where a decision document is mapped without an evaluation
 */
public record PolicyDecision(
    String policyName,
    int policyVersion,
    Outcome outcome,
    int requiredApprovers,
    List<String> approverRoles,
    List<String> approverTeams,
    List<String> reasons,
    JsonNode rawResult,
    String policySha256) {

  public PolicyDecision {
    approverRoles = List.copyOf(approverRoles);
    approverTeams = List.copyOf(approverTeams);
    reasons = List.copyOf(reasons);
  }

  /** What happens to a command. */
  public enum Outcome {
    /** Execute at once. */
    AUTO_APPROVE,
    /** Wait for {@code requiredApprovers} distinct eligible approvals (never the requester). */
    REQUIRE_APPROVAL,
    /** Refuse. */
    DENY,
    /** Execute at once, flagged, with a post-hoc review item for approvers. */
    BREAK_GLASS;

    /** The name in decision documents: {@code auto_approve}, {@code require_approval}, ... */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Outcome> parse(String wire) {
      return Arrays.stream(values()).filter(o -> o.wireName().equals(wire)).findFirst();
    }
  }

  /** Maps an evaluation's decision document, refusing anything not well-formed. */
  public static PolicyDecision of(PolicyEvaluation evaluation) {
    return of(
        evaluation.policyName(),
        evaluation.policyVersion(),
        evaluation.policySha256(),
        evaluation.decision());
  }

  /**
   * Maps a decision document without a text hash; see {@link #of(String, int, String, JsonNode)}.
   */
  public static PolicyDecision of(String policyName, int policyVersion, JsonNode decision) {
    return of(policyName, policyVersion, null, decision);
  }

  /**
   * Maps a decision document, refusing anything not well-formed.
   *
   * @throws PolicyEvaluationException the document is missing or malformed
   */
  public static PolicyDecision of(
      String policyName, int policyVersion, String policySha256, JsonNode decision) {
    String where = "policy " + policyName + " version " + policyVersion;
    if (decision == null || !decision.isObject()) {
      throw new PolicyEvaluationException(where + " returned no decision object");
    }
    JsonNode o = decision.get("outcome");
    Outcome outcome =
        o != null && o.isTextual()
            ? Outcome.parse(o.asText())
                .orElseThrow(
                    () ->
                        malformed(
                            where,
                            "outcome \""
                                + o.asText()
                                + "\" is not one of auto_approve, require_approval, deny,"
                                + " break_glass"))
            : null;
    if (outcome == null) {
      throw malformed(where, "outcome is missing or not a string");
    }
    JsonNode n = decision.get("required_approvers");
    if (n == null || !n.canConvertToExactIntegral() || n.asInt() < 0) {
      throw malformed(where, "required_approvers is missing or not a whole number >= 0");
    }
    int required = n.asInt();
    if (outcome == Outcome.REQUIRE_APPROVAL && required < 1) {
      throw malformed(where, "require_approval needs required_approvers of at least 1");
    }
    List<String> roles = strings(where, decision, "approver_roles");
    List<String> teams = strings(where, decision, "approver_teams");
    if (outcome == Outcome.REQUIRE_APPROVAL && roles.isEmpty() && teams.isEmpty()) {
      throw malformed(where, "require_approval names no approver_roles and no approver_teams");
    }
    return new PolicyDecision(
        policyName,
        policyVersion,
        outcome,
        outcome == Outcome.REQUIRE_APPROVAL ? required : 0,
        roles,
        teams,
        strings(where, decision, "reasons"),
        decision.deepCopy(),
        policySha256);
  }

  private static List<String> strings(String where, JsonNode decision, String field) {
    JsonNode a = decision.get(field);
    if (a == null || a.isNull()) {
      return List.of();
    }
    if (!a.isArray()) {
      throw malformed(where, field + " is not an array");
    }
    List<String> out = new ArrayList<>();
    for (JsonNode e : a) {
      if (!e.isTextual()) {
        throw malformed(where, field + " holds a value that is not a string");
      }
      out.add(e.asText());
    }
    return out;
  }

  private static PolicyEvaluationException malformed(String where, String what) {
    return new PolicyEvaluationException(where + " returned a malformed decision: " + what);
  }
}
