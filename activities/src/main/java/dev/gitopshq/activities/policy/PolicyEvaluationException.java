package dev.gitopshq.activities.policy;

/**
 * A loaded policy gave no usable decision: it failed while evaluating (e.g. a rule produced
 * conflicting values), left {@code decision} undefined for this input, or produced a decision that
 * is not well-formed. Retrying does not help; the policy must be fixed. Callers fail closed.
 */
public class PolicyEvaluationException extends OpaException {
  public PolicyEvaluationException(String message) {
    super(message);
  }
}
