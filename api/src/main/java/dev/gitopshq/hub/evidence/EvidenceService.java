package dev.gitopshq.hub.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.approval.ApprovalRow;
import dev.gitopshq.activities.approval.ApprovalVoteRow;
import dev.gitopshq.activities.audit.AuditEntry;
import dev.gitopshq.activities.audit.AuditLink;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.command.CommandRow;
import dev.gitopshq.activities.evidence.EvidenceKeyMapper;
import dev.gitopshq.activities.evidence.GenerationCommitRow;
import dev.gitopshq.activities.release.DeploymentRow;
import dev.gitopshq.activities.release.ReleaseRow;
import dev.gitopshq.evidence.AuditChain;
import dev.gitopshq.evidence.EvidenceSigner;
import dev.gitopshq.evidence.Sha256;
import dev.gitopshq.hub.audit.WorkflowHistories;
import dev.gitopshq.hub.command.CommandService;
import dev.gitopshq.hub.evidence.EvidenceViews.Approval;
import dev.gitopshq.hub.evidence.EvidenceViews.Audit;
import dev.gitopshq.hub.evidence.EvidenceViews.BreakGlass;
import dev.gitopshq.hub.evidence.EvidenceViews.DecisionEvidence;
import dev.gitopshq.hub.evidence.EvidenceViews.Person;
import dev.gitopshq.hub.evidence.EvidenceViews.Vote;
import dev.gitopshq.hub.evidence.EvidenceViews.Workflow;
import dev.gitopshq.hub.release.ClusterRun;
import dev.gitopshq.hub.release.ReleaseService;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.workflows.approval.ApprovalRequest;
import io.temporal.common.WorkflowExecutionHistory;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.springframework.stereotype.Service;

/**
 * Builds and signs the evidence document of a command or a release: what was asked, by whom, the
 * policy decisions, every vote, break-glass and its review, what changed, the workflows with the
 * SHA-256 of their histories, and the audit entries with the chain links that prove they belong to
 * the organization's log.
 */
@Service
public class EvidenceService {
  /** More entries than this about one subject is not a document anyone can read. */
  static final int MAX_ENTRIES = 2_000;

  /** The chain stretch between a subject's first and last entry is bounded too. */
  static final int MAX_LINKS = 50_000;

  private final CommandService commands;
  private final ReleaseService releases;
  private final AuditLog audit;
  private final WorkflowHistories histories;
  private final EvidenceKeys keys;
  private final EvidenceKeyMapper store;
  private final ObjectMapper json;
  private final Clock clock;

  public EvidenceService(
      CommandService commands,
      ReleaseService releases,
      AuditLog audit,
      WorkflowHistories histories,
      EvidenceKeys keys,
      EvidenceKeyMapper store,
      ObjectMapper json,
      Clock clock) {
    this.commands = commands;
    this.releases = releases;
    this.audit = audit;
    this.histories = histories;
    this.keys = keys;
    this.store = store;
    this.json = json;
    this.clock = clock;
  }

  public EvidenceViews.Signed command(UUID orgId, UUID id) {
    CommandRow c = commands.get(orgId, id);
    Map<ApprovalRow, List<ApprovalVoteRow>> approvalRows = commands.approvals(orgId, id);
    List<Approval> approvals = approvals(approvalRows);
    List<String> targets = new ArrayList<>(List.of(id.toString()));
    List<Workflow> workflows = new ArrayList<>(List.of(workflow(id.toString())));
    for (Approval a : approvals) {
      targets.add(a.id());
      workflows.add(workflow(ApprovalRequest.workflowId(a.id())));
    }
    List<AuditEntry> entries = entries(orgId, targets);
    BreakGlass breakGlass =
        c.breakGlass()
            ? new BreakGlass(
                id.toString(),
                c.breakGlassJustification(),
                approvals.stream()
                    .filter(a -> a.kind().equals("break_glass_review"))
                    .findFirst()
                    .orElse(null))
            : null;
    var evidence =
        new EvidenceViews.CommandEvidence(
            "command",
            orgId.toString(),
            clock.instant(),
            new EvidenceViews.CommandRequest(
                id.toString(),
                c.clusterId().toString(),
                c.type(),
                new EvidenceViews.Target(c.targetNamespace(), c.targetKind(), c.targetName()),
                c.params(),
                c.reason(),
                new Person(c.requesterId(), c.requesterType(), c.requesterName()),
                c.createdAt()),
            decisions(entries, "command.decision"),
            approvals,
            breakGlass,
            new EvidenceViews.CommandResult(
                c.status(), c.statusDetail(), c.output(), c.error(), c.finishedAt()),
            workflows,
            auditOf(orgId, entries));
    return sign(evidence);
  }

  public EvidenceViews.Signed release(UUID orgId, UUID projectId, int number) {
    ReleaseService.ReleaseDetail d = releases.get(orgId, projectId, number);
    ReleaseRow r = d.release();
    List<String> targets = new ArrayList<>(List.of(r.id().toString()));
    List<Workflow> workflows = new ArrayList<>();
    List<EvidenceViews.Deployment> deployments = new ArrayList<>();
    List<Approval> approvals = new ArrayList<>();
    List<BreakGlass> breakGlass = new ArrayList<>();
    for (DeploymentRow dep : d.deployments()) {
      targets.add(dep.id().toString());
      workflows.add(workflow(ReleaseService.workflowId(dep)));
      ReleaseService.DeploymentDetail detail = releases.deployment(orgId, projectId, dep.id());
      deployments.add(
          new EvidenceViews.Deployment(
              dep.id().toString(),
              dep.action(),
              dep.environments(),
              dep.status(),
              dep.detail(),
              new Person(dep.requestedBy(), null, dep.requesterName()),
              dep.createdAt(),
              dep.finishedAt(),
              dep.commits(),
              detail.clusters().stream().map(ClusterRun::of).toList()));
      List<Approval> own = approvals(detail.approvals());
      for (Approval a : own) {
        targets.add(a.id());
        workflows.add(workflow(ApprovalRequest.workflowId(a.id())));
      }
      approvals.addAll(own);
      if (dep.breakGlass()) {
        breakGlass.add(
            new BreakGlass(
                dep.id().toString(),
                dep.justification(),
                own.stream()
                    .filter(a -> a.kind().equals("break_glass_review"))
                    .findFirst()
                    .orElse(null)));
      }
    }
    List<GenerationCommitRow> generations = store.generations(orgId, projectId, r.configRevision());
    List<AuditEntry> entries = entries(orgId, targets);
    var evidence =
        new EvidenceViews.ReleaseEvidence(
            "release",
            orgId.toString(),
            clock.instant(),
            new EvidenceViews.ReleaseRequest(
                r.id().toString(),
                projectId.toString(),
                d.project().name(),
                r.number(),
                r.kind(),
                r.description(),
                d.rollbackOf() == null ? null : d.rollbackOf().number(),
                r.scope(),
                new Person(r.requestedBy(), null, r.requesterName()),
                r.createdAt()),
            new EvidenceViews.Configuration(
                r.configRevision(),
                r.sourceCommit(),
                generations.stream().map(GenerationCommitRow::configCommit).distinct().toList(),
                generations.stream()
                    .map(GenerationCommitRow::renderedCommit)
                    .filter(Objects::nonNull)
                    .distinct()
                    .toList()),
            deployments,
            decisions(entries, "deployment.decision"),
            approvals,
            breakGlass,
            workflows,
            auditOf(orgId, entries));
    return sign(evidence);
  }

  private EvidenceViews.Signed sign(Object evidence) {
    EvidenceKeys.Signing key = keys.current();
    JsonNode body = json.valueToTree(evidence);
    JsonNode signed = EvidenceSigner.sign(body, key.privateKey(), key.publicKey());
    JsonNode sig = signed.get("signature");
    return new EvidenceViews.Signed(
        body,
        new EvidenceViews.SignatureView(
            sig.get("algorithm").asText(),
            sig.get("keyId").asText(),
            sig.get("publicKey").asText(),
            sig.get("value").asText()));
  }

  private Workflow workflow(String workflowId) {
    try {
      WorkflowExecutionHistory h = histories.fetchKnown(workflowId);
      return new Workflow(
          workflowId,
          Sha256.history(WorkflowHistories.json(h).getBytes(StandardCharsets.UTF_8)),
          h.getHistory().getEventsCount());
    } catch (ApiException e) {
      return new Workflow(workflowId, null, null);
    }
  }

  private List<AuditEntry> entries(UUID orgId, List<String> targets) {
    List<AuditEntry> entries = audit.forTargets(orgId, targets, MAX_ENTRIES + 1);
    if (entries.size() > MAX_ENTRIES) {
      throw ApiException.conflict(
          "more than " + MAX_ENTRIES + " audit entries concern this subject");
    }
    return entries;
  }

  private Audit auditOf(UUID orgId, List<AuditEntry> entries) {
    List<AuditChain.Entry> full = entries.stream().map(AuditEntry::asHashed).toList();
    if (full.isEmpty()) {
      return new Audit(full, List.of());
    }
    List<AuditLink> links =
        audit.links(orgId, full.getFirst().seq(), full.getLast().seq(), MAX_LINKS + 1);
    if (links.size() > MAX_LINKS) {
      throw ApiException.conflict(
          "this subject's audit entries span more than " + MAX_LINKS + " entries of the log");
    }
    return new Audit(
        full,
        links.stream().map(l -> new AuditChain.Link(l.seq(), l.prevHash(), l.hash())).toList());
  }

  private List<DecisionEvidence> decisions(List<AuditEntry> entries, String action) {
    List<DecisionEvidence> out = new ArrayList<>();
    for (AuditEntry e : entries) {
      if (!e.action().equals(action)) {
        continue;
      }
      JsonNode d;
      try {
        d = json.readTree(e.details());
      } catch (Exception ex) {
        continue;
      }
      List<String> reasons = new ArrayList<>();
      d.path("reasons").forEach(n -> reasons.add(n.asText()));
      out.add(
          new DecisionEvidence(
              e.targetId(),
              d.path("policy").asText(null),
              d.hasNonNull("version") ? d.get("version").asInt() : null,
              d.path("sha256").asText(null),
              d.path("inputSha256").asText(null),
              d.path("outcome").asText(null),
              reasons,
              e.seq(),
              e.at().toString()));
    }
    return out;
  }

  private static List<Approval> approvals(Map<ApprovalRow, List<ApprovalVoteRow>> rows) {
    List<Approval> out = new ArrayList<>();
    for (Map.Entry<ApprovalRow, List<ApprovalVoteRow>> a : rows.entrySet()) {
      ApprovalRow r = a.getKey();
      out.add(
          new Approval(
              r.id(),
              r.kind(),
              r.subjectId().toString(),
              r.status(),
              r.requiredApprovers(),
              r.approverRoles(),
              r.approverTeams(),
              r.createdAt(),
              r.closedAt(),
              a.getValue().stream()
                  .map(
                      v ->
                          new Vote(
                              v.memberId(),
                              v.memberName(),
                              v.approve(),
                              v.comment(),
                              v.counted(),
                              v.why(),
                              v.at()))
                  .toList()));
    }
    return out;
  }
}
