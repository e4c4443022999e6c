package dev.gitopshq.activities.policy;

import java.util.List;

/** OPA refused a module because it does not compile; {@link #errors()} is OPA's own list. */
public class PolicyCompileException extends OpaException {
  private final String policyId;
  private final List<OpaError> errors;

  public PolicyCompileException(String policyId, List<OpaError> errors) {
    super(
        "policy "
            + policyId
            + " does not compile: "
            + (errors.isEmpty() ? "OPA gave no details" : errors.get(0).describe())
            + (errors.size() > 1 ? " (and " + (errors.size() - 1) + " more)" : ""));
    this.policyId = policyId;
    this.errors = List.copyOf(errors);
  }

  /** The OPA policy id of the refused module, e.g. {@code gitopshq/approval}. */
  public String policyId() {
    return policyId;
  }

  /** OPA's errors in its order, each with code, message and location. */
  public List<OpaError> errors() {
    return errors;
  }
}
