package dev.gitopshq.hub.approval;

import dev.gitopshq.activities.approval.ApprovalRow;
import dev.gitopshq.activities.approval.ApprovalVoteRow;
import java.time.Instant;
import java.util.List;

/**
 * How the REST API shows the governance of a governed subject (a command, a deployment): its
 * approvals with their votes, and its timeline. Commands and releases answer with these same
 * records.
 */
public final class ApprovalViews {
  private ApprovalViews() {}

  /** One approver's vote; {@code counted} false with {@code why} when it did not count. */
  public record VoteView(
      String memberId,
      String name,
      boolean approve,
      String comment,
      boolean counted,
      String why,
      Instant at) {}

  /** An approval (or break-glass review) of the subject, with its votes in order. */
  public record ApprovalView(
      String id,
      String kind,
      String status,
      int requiredApprovers,
      List<String> approverRoles,
      List<String> approverTeams,
      Instant createdAt,
      Instant expiresAt,
      Instant closedAt,
      List<VoteView> votes) {}

  /** One step of the subject's timeline. */
  public record EventView(int seq, Instant at, String status, String actor, String detail) {}

  public static ApprovalView approval(ApprovalRow a, List<ApprovalVoteRow> votes) {
    return new ApprovalView(
        a.id(),
        a.kind(),
        a.status(),
        a.requiredApprovers(),
        a.approverRoles(),
        a.approverTeams(),
        a.createdAt(),
        a.expiresAt(),
        a.closedAt(),
        votes.stream()
            .map(
                v ->
                    new VoteView(
                        v.memberId(),
                        v.memberName(),
                        v.approve(),
                        v.comment(),
                        v.counted(),
                        v.why(),
                        v.at()))
            .toList());
  }
}
