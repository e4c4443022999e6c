package dev.gitopshq.workflows.approval;

import java.util.List;

/**
 * Who may approve: the one rule, used by the approval workflow when it counts a vote and by the
 * hub's inbox when it lists items and refuses a vote. A member is eligible when their role is one
 * of the approver roles or one of their teams is an approver team; a policy that names neither
 * leaves it to {@link #DEFAULT_ROLES}. Four eyes (never the requester) is checked beside it.
 */
public final class Eligibility {
  /** The roles that may approve when a decision names no roles and no teams. */
  public static final List<String> DEFAULT_ROLES = List.of("admin", "owner");

  private Eligibility() {}

  /** The roles that may approve under a decision's approver roles and teams. */
  public static List<String> roles(List<String> approverRoles, List<String> approverTeams) {
    return approverRoles.isEmpty() && approverTeams.isEmpty() ? DEFAULT_ROLES : approverRoles;
  }

  /**
   * Why this member may not vote on a request at all, whatever the policy says, or null: four eyes
   * means someone other than the requester, and other than the people behind a requesting service
   * account (its creator and owner, and everyone up a chain of accounts made by accounts).
   */
  public static String ownRequest(String requesterId, List<String> behind, String memberId) {
    if (memberId.equals(requesterId)) {
      return "the requester cannot approve their own request";
    }
    if (behind.contains(memberId)) {
      return "the request comes from a service account this person created or owns, or one made by"
          + " such an account; four eyes needs someone else";
    }
    return null;
  }

  /** Whether a member with {@code role} and {@code teams} may approve. */
  public static boolean eligible(
      List<String> approverRoles, List<String> approverTeams, String role, List<String> teams) {
    if (role != null && roles(approverRoles, approverTeams).contains(role)) {
      return true;
    }
    return teams.stream().anyMatch(approverTeams::contains);
  }
}
