package dev.gitopshq.activities.release;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.policy.PolicyEvaluation;
import dev.gitopshq.activities.policy.PolicyEvaluationException;
import dev.gitopshq.activities.policy.PolicyService;
import dev.gitopshq.workflows.release.FreezeCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Reads the {@code gitopshq.freeze} decision through {@link PolicyService}: {@code frozen} and
 * {@code blocked} must be booleans, or the decision is refused (a policy mistake must never
 * unfreeze an environment).
 */
public final class PolicyFreezeGate implements FreezeGate {
  /** The policy freeze decisions come from. */
  public static final String FREEZE_POLICY = "freeze";

  private final PolicyService policies;

  public PolicyFreezeGate(PolicyService policies) {
    this.policies = policies;
  }

  @Override
  public FreezeCheck check(UUID orgId, JsonNode input) {
    return parse(policies.evaluate(orgId, FREEZE_POLICY, input));
  }

  /** Maps the decision document, refusing anything not well-formed. */
  public static FreezeCheck parse(PolicyEvaluation e) {
    JsonNode d = e.decision();
    String where = "policy " + e.policyName() + " version " + e.policyVersion();
    if (d == null || !d.isObject()) {
      throw new PolicyEvaluationException(where + " returned no decision object");
    }
    JsonNode frozen = d.get("frozen");
    JsonNode blocked = d.get("blocked");
    if (frozen == null || !frozen.isBoolean() || blocked == null || !blocked.isBoolean()) {
      throw new PolicyEvaluationException(
          where + " returned a malformed freeze decision: frozen and blocked must be booleans");
    }
    List<String> reasons = new ArrayList<>();
    JsonNode r = d.get("reasons");
    if (r != null && r.isArray()) {
      r.forEach(x -> reasons.add(x.asText()));
    }
    // Blocked without frozen would be a contradiction: treat it as frozen and blocked.
    return new FreezeCheck(
        e.policyName(), e.policyVersion(), frozen.asBoolean() || blocked.asBoolean(),
        blocked.asBoolean(), reasons);
  }
}
