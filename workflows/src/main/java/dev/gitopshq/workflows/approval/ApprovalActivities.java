package dev.gitopshq.workflows.approval;

import io.temporal.activity.ActivityInterface;

/** The inbox side of an approval. Every method is idempotent; the approval id is the key. */
@ActivityInterface
public interface ApprovalActivities {
  /** Opens the inbox item (idempotent on {@code request.approvalId()}). */
  void open(ApprovalRequest request);

  /** Records a vote on the item's timeline, counted or not (idempotent on approval id + index). */
  void recordVote(String orgId, String approvalId, int index, RecordedVote vote);

  /** Closes the inbox item with its outcome. */
  void close(String orgId, String approvalId, String outcome);
}
