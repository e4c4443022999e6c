package dev.gitopshq.workflows.approval;

import dev.gitopshq.workflows.StoreActivities;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * See {@link ApprovalWorkflow}. Four-eyes is enforced here, not only in the REST layer: the
 * requester's vote, a second vote by the same person, and a vote by someone the policy does not
 * name never count, whatever signal arrives.
 */
public class ApprovalWorkflowImpl implements ApprovalWorkflow {
  /** Eligible when a request names neither roles nor teams. */
  private final ApprovalActivities inbox =
      Workflow.newActivityStub(ApprovalActivities.class, StoreActivities.options());

  private final List<RecordedVote> votes = new ArrayList<>();
  private final List<ApprovalVote> pending = new ArrayList<>();
  private String cancelledBy;

  @Override
  public ApprovalResult run(ApprovalRequest request) {
    inbox.open(request);
    Set<String> approvedBy = new HashSet<>();
    Set<String> voted = new HashSet<>();
    String outcome = null;
    long deadline = Workflow.currentTimeMillis() + request.timeoutSeconds() * 1000;

    while (outcome == null) {
      long left = deadline - Workflow.currentTimeMillis();
      boolean woke =
          left > 0
              && Workflow.await(
                  Duration.ofMillis(left), () -> !pending.isEmpty() || cancelledBy != null);
      if (cancelledBy != null) {
        outcome = ApprovalResult.CANCELLED;
        break;
      }
      if (!woke) {
        outcome = ApprovalResult.EXPIRED;
        break;
      }
      ApprovalVote v = pending.remove(0);
      String why = refusal(request, v, voted);
      RecordedVote recorded = new RecordedVote(v, why == null, why, Workflow.currentTimeMillis());
      votes.add(recorded);
      inbox.recordVote(request.orgId(), request.approvalId(), votes.size() - 1, recorded);
      if (why != null) {
        continue;
      }
      voted.add(v.memberId());
      if (!v.approve()) {
        outcome = ApprovalResult.REJECTED;
      } else {
        approvedBy.add(v.memberId());
        if (approvedBy.size() >= Math.max(1, request.requiredApprovers())) {
          outcome = ApprovalResult.APPROVED;
        }
      }
    }
    inbox.close(request.orgId(), request.approvalId(), outcome);
    return new ApprovalResult(outcome, votes);
  }

  /** Why a vote does not count, or null when it does. */
  static String refusal(ApprovalRequest request, ApprovalVote v, Set<String> voted) {
    if (v.memberId() == null || v.memberId().isBlank()) {
      return "only members can approve";
    }
    String own =
        Eligibility.ownRequest(request.requesterId(), request.requesterBehind(), v.memberId());
    if (own != null) {
      return own;
    }
    if (voted.contains(v.memberId())) {
      return "this person already voted";
    }
    if (!eligible(request, v)) {
      return "not an eligible approver under the policy";
    }
    return null;
  }

  static boolean eligible(ApprovalRequest request, ApprovalVote v) {
    return Eligibility.eligible(
        request.approverRoles(), request.approverTeams(), v.role(), v.teams());
  }

  @Override
  public void vote(ApprovalVote vote) {
    pending.add(vote);
  }

  @Override
  public void cancel(String by) {
    if (cancelledBy == null) {
      cancelledBy = by;
    }
  }

  @Override
  public List<RecordedVote> votes() {
    return List.copyOf(votes);
  }
}
