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

  /**
   * The same errors as the author knows the module: ids without the organization's prefix ({@code
   * orgs/<org>/}) and references without its root ({@code org_<hex>.}), so they read {@code
   * gitopshq/approval:7:1} and {@code data.gitopshq.x} as written.
   */
  public PolicyCompileException asWritten(String idPrefix, String root) {
    List<OpaError> mapped =
        errors.stream()
            .map(
                e ->
                    new OpaError(
                        e.code(),
                        e.message() == null ? null : e.message().replace(root + ".", ""),
                        e.location() == null
                            ? null
                            : new OpaError.Location(
                                strip(e.location().file(), idPrefix),
                                e.location().row(),
                                e.location().col())))
            .toList();
    return new PolicyCompileException(strip(policyId, idPrefix), mapped);
  }

  private static String strip(String id, String prefix) {
    return id != null && id.startsWith(prefix) ? id.substring(prefix.length()) : id;
  }
}
