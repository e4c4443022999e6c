package dev.gitopshq.workflows.governance;

import java.util.List;

/**
 * The OPA decision, with the policy version that produced it.
 *
 * @param outcome auto_approve, require_approval, deny or break_glass
 */
public record Decision(
    String policy,
    int policyVersion,
    String outcome,
    int requiredApprovers,
    List<String> approverRoles,
    List<String> approverTeams,
    List<String> reasons) {
  public static final String AUTO_APPROVE = "auto_approve";
  public static final String REQUIRE_APPROVAL = "require_approval";
  public static final String DENY = "deny";
  public static final String BREAK_GLASS = "break_glass";

  public Decision {
    approverRoles = approverRoles == null ? List.of() : List.copyOf(approverRoles);
    approverTeams = approverTeams == null ? List.of() : List.copyOf(approverTeams);
    reasons = reasons == null ? List.of() : List.copyOf(reasons);
  }
}
