package dev.gitopshq.workflows.approval;

import java.util.List;

/**
 * One person's approve or reject, as the REST layer authenticated them.
 *
 * @param approve true to approve, false to reject
 */
public record ApprovalVote(
    String memberId,
    String name,
    String role,
    List<String> teams,
    boolean approve,
    String comment) {
  public ApprovalVote {
    teams = teams == null ? List.of() : List.copyOf(teams);
  }
}
