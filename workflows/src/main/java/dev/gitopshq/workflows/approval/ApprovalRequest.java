package dev.gitopshq.workflows.approval;

import java.util.List;

/**
 * What must be approved and by whom.
 *
 * @param kind what the inbox item is: command, break_glass_review
 * @param subjectId the id of the command (or other subject)
 * @param requesterId who asked; never counts as an approver of their own request
 * @param requesterBehind who stands behind a requesting service account (its creator and owner, and
 *     everyone up a chain of accounts made by accounts); they do not count as approvers either
 * @param requiredApprovers how many distinct eligible approvals settle it
 * @param approverRoles roles whose members are eligible (empty with no teams: any admin or owner)
 * @param approverTeams teams whose members are eligible
 * @param timeoutSeconds how long before the request expires
 * @param summary one line for the inbox
 */
public record ApprovalRequest(
    String orgId,
    String approvalId,
    String kind,
    String subjectId,
    String clusterId,
    String requesterId,
    List<String> requesterBehind,
    int requiredApprovers,
    List<String> approverRoles,
    List<String> approverTeams,
    long timeoutSeconds,
    String summary) {
  public ApprovalRequest {
    requesterBehind = requesterBehind == null ? List.of() : List.copyOf(requesterBehind);
    approverRoles = approverRoles == null ? List.of() : List.copyOf(approverRoles);
    approverTeams = approverTeams == null ? List.of() : List.copyOf(approverTeams);
  }

  /** The stable workflow id for an approval. */
  public static String workflowId(String approvalId) {
    return "approval-" + approvalId;
  }
}
