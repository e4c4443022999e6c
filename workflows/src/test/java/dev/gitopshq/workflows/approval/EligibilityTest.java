package dev.gitopshq.workflows.approval;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class EligibilityTest {
  @Test
  void aDecisionWithoutRolesOrTeamsLeavesItToAdminsAndOwners() {
    assertThat(Eligibility.eligible(List.of(), List.of(), "admin", List.of())).isTrue();
    assertThat(Eligibility.eligible(List.of(), List.of(), "owner", List.of())).isTrue();
    assertThat(Eligibility.eligible(List.of(), List.of(), "member", List.of("platform"))).isFalse();
  }

  @Test
  void namedRolesOrTeamsDecideAndTheDefaultNoLongerApplies() {
    assertThat(Eligibility.eligible(List.of("member"), List.of(), "member", List.of())).isTrue();
    assertThat(Eligibility.eligible(List.of(), List.of("sre"), "admin", List.of())).isFalse();
    assertThat(Eligibility.eligible(List.of(), List.of("sre"), "viewer", List.of("sre"))).isTrue();
    assertThat(Eligibility.eligible(List.of("admin"), List.of(), null, List.of())).isFalse();
    assertThat(Eligibility.roles(List.of(), List.of("sre"))).isEmpty();
  }

  @Test
  void fourEyesExcludesTheRequesterAndThePeopleBehindARequestingServiceAccount() {
    ApprovalRequest fromBot =
        ApprovalRequest.builder()
            .orgId("org")
            .approvalId("a1")
            .kind("command")
            .subjectId("c1")
            .requester("sa-1", List.of("alice", "bob"))
            .approvers(1, List.of(), List.of())
            .timeoutSeconds(60)
            .summary("scale web")
            .build();
    ApprovalVote alice = new ApprovalVote("alice", "Alice", "admin", List.of(), true, "mine");
    ApprovalVote bob = new ApprovalVote("bob", "Bob", "owner", List.of(), true, "mine");
    ApprovalVote carol = new ApprovalVote("carol", "Carol", "admin", List.of(), true, "ok");
    assertThat(ApprovalWorkflowImpl.refusal(fromBot, alice, java.util.Set.of()))
        .contains("service account this person created or owns");
    assertThat(ApprovalWorkflowImpl.refusal(fromBot, bob, java.util.Set.of()))
        .contains("four eyes");
    assertThat(ApprovalWorkflowImpl.refusal(fromBot, carol, java.util.Set.of())).isNull();

    ApprovalRequest fromAlice =
        ApprovalRequest.builder()
            .orgId("org")
            .approvalId("a2")
            .kind("command")
            .subjectId("c2")
            .requester("alice", List.of())
            .approvers(1, List.of(), List.of())
            .timeoutSeconds(60)
            .summary("scale web")
            .build();
    assertThat(ApprovalWorkflowImpl.refusal(fromAlice, alice, java.util.Set.of()))
        .isEqualTo("the requester cannot approve their own request");
    assertThat(ApprovalWorkflowImpl.refusal(fromAlice, bob, java.util.Set.of())).isNull();
  }
}
