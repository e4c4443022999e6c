package dev.gitopshq.activities.approval;

import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.workflows.approval.ApprovalActivities;
import dev.gitopshq.workflows.approval.ApprovalRequest;
import dev.gitopshq.workflows.approval.RecordedVote;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.springframework.transaction.support.TransactionTemplate;

/** The approval workflow's inbox activities, against PostgreSQL. */
public class ApprovalActivitiesImpl implements ApprovalActivities {
  private final ApprovalMapper approvals;
  private final AuditLog audit;
  private final TransactionTemplate tx;
  private final Clock clock;

  public ApprovalActivitiesImpl(
      ApprovalMapper approvals, AuditLog audit, TransactionTemplate tx, Clock clock) {
    this.approvals = approvals;
    this.audit = audit;
    this.tx = tx;
    this.clock = clock;
  }

  @Override
  public void open(ApprovalRequest r) {
    UUID org = UUID.fromString(r.orgId());
    tx.executeWithoutResult(
        t -> {
          Instant now = clock.instant();
          int inserted =
              approvals.insert(
                  new ApprovalRow(
                      r.approvalId(),
                      org,
                      r.kind(),
                      UUID.fromString(r.subjectId()),
                      r.clusterId() == null ? null : UUID.fromString(r.clusterId()),
                      r.requesterId(),
                      r.requesterBehind(),
                      r.requiredApprovers(),
                      r.approverRoles(),
                      r.approverTeams(),
                      r.summary(),
                      "open",
                      now,
                      now.plusSeconds(r.timeoutSeconds()),
                      null));
          if (inserted == 1) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("kind", r.kind());
            d.put("subjectId", r.subjectId());
            d.put("requiredApprovers", r.requiredApprovers());
            d.put("approverRoles", r.approverRoles());
            d.put("approverTeams", r.approverTeams());
            audit.record(
                org,
                Actor.system("approval-workflow"),
                "approval.opened",
                "approval",
                r.approvalId(),
                d);
          }
        });
  }

  @Override
  public void recordVote(String orgId, String approvalId, int index, RecordedVote v) {
    UUID org = UUID.fromString(orgId);
    tx.executeWithoutResult(
        t -> {
          int inserted =
              approvals.insertVote(
                  org,
                  approvalId,
                  index,
                  v.vote().memberId(),
                  v.vote().name(),
                  v.vote().approve(),
                  v.vote().comment() == null ? "" : v.vote().comment(),
                  v.counted(),
                  v.why(),
                  clock.instant());
          if (inserted == 1) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("approve", v.vote().approve());
            d.put("comment", v.vote().comment());
            d.put("counted", v.counted());
            d.put("why", v.why());
            audit.record(
                org,
                new Actor("member", v.vote().memberId(), v.vote().name()),
                v.vote().approve() ? "approval.approved_by" : "approval.rejected_by",
                "approval",
                approvalId,
                d);
          }
        });
  }

  @Override
  public void close(String orgId, String approvalId, String outcome) {
    UUID org = UUID.fromString(orgId);
    tx.executeWithoutResult(
        t -> {
          if (approvals.close(org, approvalId, outcome, clock.instant()) == 1) {
            audit.record(
                org,
                Actor.system("approval-workflow"),
                "approval." + outcome,
                "approval",
                approvalId,
                Map.of("outcome", outcome));
          }
        });
  }
}
