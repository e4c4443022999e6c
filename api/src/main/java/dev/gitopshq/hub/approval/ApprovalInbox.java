package dev.gitopshq.hub.approval;

import dev.gitopshq.activities.approval.ApprovalMapper;
import dev.gitopshq.activities.approval.ApprovalRow;
import dev.gitopshq.activities.approval.ApprovalVoteRow;
import dev.gitopshq.activities.command.CommandMapper;
import dev.gitopshq.activities.command.CommandRow;
import dev.gitopshq.activities.identity.MemberMapper;
import dev.gitopshq.activities.identity.MemberRow;
import dev.gitopshq.activities.release.ChangeSummary;
import dev.gitopshq.activities.release.DeploymentMapper;
import dev.gitopshq.activities.release.DeploymentSubjectRow;
import dev.gitopshq.hub.features.Feature;
import dev.gitopshq.hub.features.PlanGuard;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import dev.gitopshq.workflows.approval.ApprovalRequest;
import dev.gitopshq.workflows.approval.ApprovalVote;
import dev.gitopshq.workflows.approval.ApprovalWorkflow;
import dev.gitopshq.workflows.approval.Eligibility;
import io.temporal.client.WorkflowClient;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The approvals inbox: what a member may act on, and their votes, which go to the approval's
 * workflow. The one place the inbox reads the store.
 */
@Service
public class ApprovalInbox {
  /** Eligible when an approval names neither roles nor teams (as the workflow assumes). */
  private final ApprovalMapper approvals;

  private final CommandMapper commands;
  private final DeploymentMapper deployments;
  private final MemberMapper members;
  private final WorkflowClient temporal;
  private final PlanGuard plans;

  /** The kind of the approval that holds a rollback deployment. */
  private static final String ROLLBACK = "rollback";

  public ApprovalInbox(
      ApprovalMapper approvals,
      CommandMapper commands,
      DeploymentMapper deployments,
      MemberMapper members,
      WorkflowClient temporal,
      PlanGuard plans) {
    this.plans = plans;
    this.approvals = approvals;
    this.commands = commands;
    this.deployments = deployments;
    this.members = members;
    this.temporal = temporal;
  }

  /**
   * What an item asks about. A command names its type, cluster and target; a deployment (release,
   * promotion, rollback) names its project, release number, action, environments and what it
   * changes (once the policy counted it). Fields that do not apply are left out.
   */
  record Subject(
      String type,
      String commandType,
      String clusterId,
      String target,
      String reason,
      String requester,
      boolean breakGlass,
      String justification,
      String projectId,
      String project,
      Integer release,
      String releaseKind,
      Integer rollbackOf,
      String action,
      List<String> environments,
      ChangeSummary changes) {
    static Subject command(CommandRow c) {
      return new Subject(
          "command",
          c.type(),
          c.clusterId().toString(),
          c.targetNamespace() + "/" + c.targetKind() + "/" + c.targetName(),
          c.reason(),
          c.requesterName(),
          c.breakGlass(),
          c.breakGlassJustification(),
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null);
    }

    static Subject deployment(DeploymentSubjectRow d) {
      return new Subject(
          "deployment",
          null,
          null,
          null,
          d.releaseDescription(),
          d.requesterName(),
          d.breakGlass(),
          d.breakGlass() ? d.justification() : null,
          d.projectId().toString(),
          d.project(),
          d.releaseNumber(),
          d.releaseKind(),
          d.rollbackOfNumber(),
          d.action(),
          d.environments(),
          ChangeSummary.fromJson(d.changes()));
    }
  }

  record Item(
      String id,
      String kind,
      String status,
      String summary,
      int requiredApprovers,
      long approvals,
      List<String> approverRoles,
      List<String> approverTeams,
      Subject subject,
      Instant createdAt,
      Instant expiresAt) {}

  record Inbox(List<Item> items) {}

  record VoteBody(String comment) {}

  record Voted(String id, String status) {}

  @Transactional(readOnly = true)
  public Inbox inbox(HubPrincipal caller) {
    if (!caller.isMember()) {
      return new Inbox(List.of());
    }
    MemberRow me = members.findById(caller.orgId(), caller.memberId()).orElseThrow();
    List<Item> items =
        approvals.open(caller.orgId()).stream()
            .filter(
                a ->
                    Eligibility.ownRequest(a.requesterId(), a.requesterBehind(), caller.id())
                            == null
                        && eligible(a, me))
            .filter(
                a ->
                    approvals.votes(caller.orgId(), a.id()).stream()
                        .noneMatch(v -> v.memberId().equals(caller.id())))
            .map(a -> item(caller.orgId(), a))
            .toList();
    return new Inbox(items);
  }

  @Transactional(readOnly = true)
  public Voted vote(HubPrincipal caller, String id, boolean approve, String comment) {
    new Checks().text("comment", comment, 2048).throwIfInvalid();
    if (!caller.isMember()) {
      throw ApiException.forbidden("only members can approve or reject; service accounts cannot");
    }
    ApprovalRow a =
        approvals
            .findById(caller.orgId(), id)
            .orElseThrow(() -> ApiException.notFound("approval " + id));
    if (ROLLBACK.equals(a.kind())) {
      plans.require(caller, Feature.ROLLBACK_APPROVAL);
    }
    if (a.requesterId().equals(caller.id())) {
      throw ApiException.forbidden("you cannot approve or reject your own request");
    }
    if (a.requesterBehind().contains(caller.id())) {
      throw ApiException.forbidden(
          "you cannot approve or reject this request: it comes from a service account you created"
              + " or own, or one made by such an account, and four eyes needs someone else");
    }
    MemberRow me = members.findById(caller.orgId(), caller.memberId()).orElseThrow();
    if (!eligible(a, me)) {
      throw ApiException.forbidden(
          "you are not an eligible approver: this needs role "
              + roles(a)
              + (a.approverTeams().isEmpty() ? "" : " or team " + a.approverTeams()));
    }
    if (!a.status().equals("open")) {
      throw ApiException.conflict("this approval is already " + a.status());
    }
    if (approvals.votes(caller.orgId(), id).stream()
        .anyMatch(v -> v.memberId().equals(caller.id()))) {
      throw ApiException.conflict("you already voted on this approval");
    }
    temporal
        .newWorkflowStub(ApprovalWorkflow.class, ApprovalRequest.workflowId(id))
        .vote(
            new ApprovalVote(
                caller.id(),
                caller.name(),
                me.role(),
                me.teams(),
                approve,
                comment == null ? "" : comment));
    return new Voted(id, a.status());
  }

  static List<String> roles(ApprovalRow a) {
    return Eligibility.roles(a.approverRoles(), a.approverTeams());
  }

  static boolean eligible(ApprovalRow a, MemberRow m) {
    return Eligibility.eligible(a.approverRoles(), a.approverTeams(), m.role(), m.teams());
  }

  private Item item(UUID orgId, ApprovalRow a) {
    List<ApprovalVoteRow> votes = approvals.votes(orgId, a.id());
    long counted = votes.stream().filter(v -> v.counted() && v.approve()).count();
    Subject subject =
        commands
            .findById(orgId, a.subjectId())
            .map(Subject::command)
            .or(() -> deployments.subject(orgId, a.subjectId()).map(Subject::deployment))
            .orElse(null);
    return new Item(
        a.id(),
        a.kind(),
        a.status(),
        a.summary(),
        a.requiredApprovers(),
        counted,
        a.approverRoles(),
        a.approverTeams(),
        subject,
        a.createdAt(),
        a.expiresAt());
  }
}
