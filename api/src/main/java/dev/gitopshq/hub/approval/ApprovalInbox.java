package dev.gitopshq.hub.approval;

import dev.gitopshq.activities.approval.ApprovalMapper;
import dev.gitopshq.activities.approval.ApprovalRow;
import dev.gitopshq.activities.approval.ApprovalVoteRow;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.command.CommandMapper;
import dev.gitopshq.activities.command.CommandRow;
import dev.gitopshq.activities.identity.MemberMapper;
import dev.gitopshq.activities.identity.MemberRow;
import dev.gitopshq.activities.identity.Role;
import dev.gitopshq.activities.release.ChangeSummary;
import dev.gitopshq.activities.release.DeploymentMapper;
import dev.gitopshq.activities.release.DeploymentSubjectRow;
import dev.gitopshq.hub.features.Feature;
import dev.gitopshq.hub.features.PlanGuard;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.team.Access;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import dev.gitopshq.workflows.approval.ApprovalRequest;
import dev.gitopshq.workflows.approval.ApprovalVote;
import dev.gitopshq.workflows.approval.ApprovalWorkflow;
import dev.gitopshq.workflows.approval.Eligibility;
import io.temporal.client.WorkflowClient;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
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
  private final ClusterMapper clusters;
  private final Access access;

  /** The kind of the approval that holds a rollback deployment. */
  private static final String ROLLBACK = "rollback";

  public ApprovalInbox(
      ApprovalMapper approvals,
      CommandMapper commands,
      DeploymentMapper deployments,
      MemberMapper members,
      WorkflowClient temporal,
      PlanGuard plans,
      ClusterMapper clusters,
      Access access) {
    this.clusters = clusters;
    this.access = access;
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
                        && eligible(a, me, roleOn(caller, a)))
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
    // Without a grant on the command's cluster or the deployment's project, the approval is not
    // there for the caller (the same 404 as an unknown id, before any other answer); with one, the
    // grant's role is what the policy's roles are judged on.
    Role role = roleOn(caller, a).orElseThrow(() -> ApiException.notFound("approval " + id));
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
    if (!eligible(a, me, Optional.of(role))) {
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
                role.wireName(),
                me.teams(),
                approve,
                comment == null ? "" : comment));
    return new Voted(id, a.status());
  }

  static List<String> roles(ApprovalRow a) {
    return Eligibility.roles(a.approverRoles(), a.approverTeams());
  }

  /**
   * Whether the member may vote: they reach the approval's subject (a grant, or owner/admin) and
   * their role there, or one of their teams, is one the approval accepts.
   */
  static boolean eligible(ApprovalRow a, MemberRow m, Optional<Role> role) {
    return role.isPresent()
        && Eligibility.eligible(
            a.approverRoles(), a.approverTeams(), role.get().wireName(), m.teams());
  }

  /**
   * The caller's role on what the approval is about: the command's cluster or the deployment's
   * project, through their grants (owners and admins: their role). Empty when they do not reach it.
   */
  private Optional<Role> roleOn(HubPrincipal caller, ApprovalRow a) {
    if (!Access.governed(caller)) {
      return Optional.of(caller.role());
    }
    Optional<CommandRow> command = commands.findById(caller.orgId(), a.subjectId());
    if (command.isPresent()) {
      return clusters
          .findById(caller.orgId(), command.get().clusterId())
          .flatMap(c -> access.clusterRole(caller, c));
    }
    return deployments
        .subject(caller.orgId(), a.subjectId())
        .flatMap(d -> access.projectRole(caller, d.projectId()));
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
