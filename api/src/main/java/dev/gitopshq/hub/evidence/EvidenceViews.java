package dev.gitopshq.hub.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.evidence.AuditChain;
import dev.gitopshq.hub.release.ClusterRun;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** The parts of an evidence document (see the evidence module's package-info for its shape). */
public final class EvidenceViews {
  private EvidenceViews() {}

  /** A signed document: what is signed, and the signature over its canonical bytes. */
  public record Signed(JsonNode evidence, SignatureView signature) {}

  public record SignatureView(String algorithm, String keyId, String publicKey, String value) {}

  public record Person(String id, String type, String name) {}

  /**
   * A policy decision as the audit log recorded it.
   *
   * @param policySha256 the SHA-256 of the policy version's text
   * @param inputSha256 the SHA-256 of the canonical JSON of the input OPA evaluated (null for
   *     decisions recorded before the hub kept it)
   */
  public record DecisionEvidence(
      String subjectId,
      String policy,
      Integer version,
      String policySha256,
      String inputSha256,
      String outcome,
      List<String> reasons,
      long auditSeq,
      String at) {}

  public record Vote(
      String memberId,
      String name,
      boolean approve,
      String comment,
      boolean counted,
      String why,
      Instant at) {}

  public record Approval(
      String id,
      String kind,
      String subjectId,
      String status,
      int requiredApprovers,
      List<String> approverRoles,
      List<String> approverTeams,
      Instant createdAt,
      Instant closedAt,
      List<Vote> votes) {}

  /**
   * Break-glass use and its after-the-fact review.
   *
   * @param review the break_glass_review approval (its status and votes), or null when none was
   *     opened
   */
  public record BreakGlass(String subjectId, String justification, Approval review) {}

  /**
   * A workflow behind the subject.
   *
   * @param historySha256 {@code Sha256.history} of its Temporal history at signing time, or null
   *     when Temporal no longer has it
   */
  public record Workflow(String workflowId, String historySha256, Integer events) {}

  public record Audit(List<AuditChain.Entry> entries, List<AuditChain.Link> links) {}

  public record Target(String namespace, String kind, String name) {}

  public record CommandRequest(
      String commandId,
      String clusterId,
      String type,
      Target target,
      Map<String, String> params,
      String reason,
      Person requestedBy,
      Instant requestedAt) {}

  public record CommandResult(
      String status, String statusDetail, String output, String error, Instant finishedAt) {}

  public record CommandEvidence(
      String kind,
      String orgId,
      Instant generatedAt,
      CommandRequest request,
      List<DecisionEvidence> decisions,
      List<Approval> approvals,
      BreakGlass breakGlass,
      CommandResult result,
      List<Workflow> workflows,
      Audit audit) {}

  public record ReleaseRequest(
      String releaseId,
      String projectId,
      String projectName,
      int number,
      String releaseKind,
      String description,
      Integer rollbackOf,
      String scope,
      Person requestedBy,
      Instant requestedAt) {}

  /**
   * The configuration a release carries.
   *
   * @param sourceCommit the commit on main whose rendered tree the release delivers
   * @param configCommits the configuration commits of its revision (one per generation of it)
   */
  public record Configuration(
      long revision,
      String sourceCommit,
      List<String> configCommits,
      List<String> renderedCommits) {}

  /** One deploy, promotion or rollback of the release, with the commits it wrote. */
  public record Deployment(
      String deploymentId,
      String action,
      List<String> environments,
      String status,
      String statusDetail,
      Person requestedBy,
      Instant requestedAt,
      Instant finishedAt,
      Map<String, String> deployCommits,
      List<ClusterRun> clusters) {}

  public record ReleaseEvidence(
      String kind,
      String orgId,
      Instant generatedAt,
      ReleaseRequest request,
      Configuration configuration,
      List<Deployment> deployments,
      List<DecisionEvidence> decisions,
      List<Approval> approvals,
      List<BreakGlass> breakGlass,
      List<Workflow> workflows,
      Audit audit) {}

  /** A public key of the hub. */
  public record Key(
      String id, String algorithm, String publicKey, String publicKeyPem, Instant createdAt) {}

  public record Keys(List<Key> keys) {}
}
