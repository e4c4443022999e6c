package dev.gitopshq.activities.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.audit.AuditMapper;
import dev.gitopshq.activities.store.TestSchema;
import dev.gitopshq.workflows.approval.ApprovalRequest;
import dev.gitopshq.workflows.approval.ApprovalVote;
import dev.gitopshq.workflows.approval.RecordedVote;
import java.time.Clock;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The approval workflow's activities on PostgreSQL: each is safe to run again (Temporal retries
 * activities), and each change is audited exactly once.
 */
class ApprovalActivitiesIT {
  static TestSchema schema;
  UUID org;
  ApprovalActivitiesImpl activities;
  ApprovalMapper approvals;

  @BeforeAll
  static void database() throws Exception {
    schema = TestSchema.create("approval_activities_it", ApprovalMapper.class, AuditMapper.class);
  }

  @AfterAll
  static void close() {
    if (schema != null) {
      schema.close();
    }
  }

  @BeforeEach
  void org() throws Exception {
    org = schema.newOrg();
    approvals = schema.mapper(ApprovalMapper.class);
    activities =
        new ApprovalActivitiesImpl(
            approvals,
            new AuditLog(schema.mapper(AuditMapper.class), Clock.systemUTC()),
            schema.tx(),
            Clock.systemUTC());
  }

  ApprovalRequest request(String id, List<String> behind) {
    return ApprovalRequest.builder()
        .orgId(org.toString())
        .approvalId(id)
        .kind("command")
        .subjectId(UUID.randomUUID().toString())
        .requester("sa-ci", behind)
        .approvers(2, List.of("admin"), List.of("sre"))
        .timeoutSeconds(3600)
        .summary("scale web to 5")
        .build();
  }

  long audited(String action, String id) throws Exception {
    return schema.count(
        "select count(*) from audit_log where org_id = ? and action = ? and target_id = ?",
        org,
        action,
        id);
  }

  @Test
  void openingTwiceStoresOneInboxItemWithWhoStandsBehindTheRequester() throws Exception {
    String id = "a-" + UUID.randomUUID();
    activities.open(request(id, List.of("m-creator", "m-owner")));
    activities.open(request(id, List.of("m-creator", "m-owner")));

    ApprovalRow row = approvals.findById(org, id).orElseThrow();
    assertThat(row.status()).isEqualTo("open");
    assertThat(row.requesterBehind()).containsExactly("m-creator", "m-owner");
    assertThat(row.approverTeams()).containsExactly("sre");
    assertThat(row.expiresAt()).isAfter(row.createdAt());
    assertThat(audited("approval.opened", id)).isEqualTo(1);
  }

  @Test
  void aVoteRecordedAgainAfterARetryCountsOnceAndTheCloseIsAuditedOnce() throws Exception {
    String id = "a-" + UUID.randomUUID();
    activities.open(request(id, List.of()));
    RecordedVote yes =
        new RecordedVote(
            new ApprovalVote("m-1", "Ada", "admin", List.of(), true, "lgtm"), true, null, 0);
    RecordedVote own =
        new RecordedVote(
            new ApprovalVote("sa-ci", "ci", null, List.of(), true, "mine"),
            false,
            "the requester cannot approve their own request",
            0);
    activities.recordVote(org.toString(), id, 0, yes);
    activities.recordVote(org.toString(), id, 0, yes);
    activities.recordVote(org.toString(), id, 1, own);

    List<ApprovalVoteRow> votes = approvals.votes(org, id);
    assertThat(votes).hasSize(2);
    assertThat(votes.get(0).counted()).isTrue();
    assertThat(votes.get(1).counted()).isFalse();
    assertThat(audited("approval.approved_by", id)).isEqualTo(2);

    activities.close(org.toString(), id, "approved");
    activities.close(org.toString(), id, "approved");
    assertThat(approvals.findById(org, id).orElseThrow().status()).isEqualTo("approved");
    assertThat(audited("approval.approved", id)).isEqualTo(1);
    // A late close with another outcome changes nothing.
    activities.close(org.toString(), id, "expired");
    assertThat(approvals.findById(org, id).orElseThrow().status()).isEqualTo("approved");
  }

  @Test
  void anotherOrganizationDoesNotSeeTheItem() throws Exception {
    String id = "a-" + UUID.randomUUID();
    activities.open(request(id, List.of()));
    assertThat(approvals.findById(UUID.randomUUID(), id)).isEmpty();
    assertThat(approvals.open(UUID.randomUUID())).isEmpty();
    assertThat(approvals.open(org)).extracting(ApprovalRow::id).containsExactly(id);
  }
}
