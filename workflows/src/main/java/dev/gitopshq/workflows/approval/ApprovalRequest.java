package dev.gitopshq.workflows.approval;

import dev.gitopshq.workflows.governance.Decision;
import dev.gitopshq.workflows.governance.Requester;
import java.util.List;

/**
 * What must be approved and by whom. It travels to the approval child workflow as its argument, so
 * its components (their names are its JSON fields) stay as recorded histories have them; build it
 * with {@link #builder()}.
 *
 * @param kind what the inbox item is: command, release, promotion, rollback, break_glass_review
 * @param subjectId the id of the command (or other subject)
 * @param clusterId the cluster the subject acts on, when it is one cluster; else null
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
  /** The inbox kind of the review an eligible reviewer acknowledges after a break-glass run. */
  public static final String BREAK_GLASS_REVIEW = "break_glass_review";

  public ApprovalRequest {
    requesterBehind = requesterBehind == null ? List.of() : List.copyOf(requesterBehind);
    approverRoles = approverRoles == null ? List.of() : List.copyOf(approverRoles);
    approverTeams = approverTeams == null ? List.of() : List.copyOf(approverTeams);
  }

  /** The stable workflow id for an approval. */
  public static String workflowId(String approvalId) {
    return "approval-" + approvalId;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Names every part of an {@link ApprovalRequest}; what is not set is null, 0 or empty. */
  public static final class Builder {
    private String orgId;
    private String approvalId;
    private String kind;
    private String subjectId;
    private String clusterId;
    private String requesterId;
    private List<String> requesterBehind;
    private int requiredApprovers;
    private List<String> approverRoles;
    private List<String> approverTeams;
    private long timeoutSeconds;
    private String summary;

    private Builder() {}

    public Builder orgId(String orgId) {
      this.orgId = orgId;
      return this;
    }

    public Builder approvalId(String approvalId) {
      this.approvalId = approvalId;
      return this;
    }

    public Builder kind(String kind) {
      this.kind = kind;
      return this;
    }

    public Builder subjectId(String subjectId) {
      this.subjectId = subjectId;
      return this;
    }

    public Builder clusterId(String clusterId) {
      this.clusterId = clusterId;
      return this;
    }

    /** Who asked and who stands behind them; none of them may approve. */
    public Builder requester(String id, List<String> behind) {
      this.requesterId = id;
      this.requesterBehind = behind;
      return this;
    }

    public Builder requester(Requester requester) {
      return requester(requester.id(), requester.behind());
    }

    /** How many eligible approvals settle it, and who is eligible. */
    public Builder approvers(int required, List<String> roles, List<String> teams) {
      this.requiredApprovers = required;
      this.approverRoles = roles;
      this.approverTeams = teams;
      return this;
    }

    /** The approvers the policy's decision asks for. */
    public Builder approvers(Decision decision) {
      return approvers(
          decision.requiredApprovers(), decision.approverRoles(), decision.approverTeams());
    }

    public Builder timeoutSeconds(long timeoutSeconds) {
      this.timeoutSeconds = timeoutSeconds;
      return this;
    }

    public Builder summary(String summary) {
      this.summary = summary;
      return this;
    }

    public ApprovalRequest build() {
      return new ApprovalRequest(
          orgId,
          approvalId,
          kind,
          subjectId,
          clusterId,
          requesterId,
          requesterBehind,
          requiredApprovers,
          approverRoles,
          approverTeams,
          timeoutSeconds,
          summary);
    }
  }
}
