package dev.gitopshq.workflows.approval;

import java.util.List;

/**
 * How an approval ended.
 *
 * @param outcome approved, rejected, expired or cancelled
 * @param votes every vote received, counted or not, in order
 */
public record ApprovalResult(String outcome, List<RecordedVote> votes) {
  public static final String APPROVED = "approved";
  public static final String REJECTED = "rejected";
  public static final String EXPIRED = "expired";
  public static final String CANCELLED = "cancelled";

  public ApprovalResult {
    votes = List.copyOf(votes);
  }
}
