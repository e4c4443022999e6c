package dev.gitopshq.hub.release;

import dev.gitopshq.activities.approval.ApprovalMapper;
import dev.gitopshq.activities.approval.ApprovalRow;
import dev.gitopshq.activities.approval.ApprovalVoteRow;
import dev.gitopshq.activities.delivery.ProjectEnvironmentMapper;
import dev.gitopshq.activities.delivery.ProjectEnvironmentRow;
import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.release.DeploymentClusterRow;
import dev.gitopshq.activities.release.DeploymentEventRow;
import dev.gitopshq.activities.release.DeploymentMapper;
import dev.gitopshq.activities.release.DeploymentRow;
import dev.gitopshq.activities.release.ReleaseMapper;
import dev.gitopshq.activities.release.ReleaseRow;
import dev.gitopshq.activities.release.RuntimeMapper;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.workflows.release.DeploymentRequest;
import dev.gitopshq.workflows.release.ReleaseWorkflow;
import dev.gitopshq.workflows.release.RollbackWorkflow;
import io.temporal.client.WorkflowClient;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Reads a project's releases and deployments back, and cancels a deployment before it writes.
 * Creating ({@link NewReleases}), promoting ({@link Promotions}) and rolling back ({@link
 * Rollbacks}) each have their own service.
 */
@Service
public class ReleaseService {
  private final ProjectMapper projects;
  private final ProjectEnvironmentMapper projectEnvironments;
  private final ReleaseMapper releases;
  private final DeploymentMapper deployments;
  private final ApprovalMapper approvals;
  private final WorkflowClient temporal;
  private final RuntimeMapper runtime;

  public ReleaseService(
      ProjectMapper projects,
      ProjectEnvironmentMapper projectEnvironments,
      ReleaseMapper releases,
      DeploymentMapper deployments,
      ApprovalMapper approvals,
      WorkflowClient temporal,
      RuntimeMapper runtime) {
    this.projects = projects;
    this.projectEnvironments = projectEnvironments;
    this.releases = releases;
    this.deployments = deployments;
    this.approvals = approvals;
    this.temporal = temporal;
    this.runtime = runtime;
  }

  // ---- reads ----------------------------------------------------------------------------

  @Transactional(readOnly = true)
  public List<ReleaseRow> list(UUID org, UUID projectId, int limit) {
    project(org, projectId);
    return releases.list(org, projectId, limit);
  }

  /** A release with its deployments, oldest first. */
  public record ReleaseDetail(
      ProjectRow project,
      ReleaseRow release,
      ReleaseRow rollbackOf,
      List<DeploymentRow> deployments,
      List<String> environmentOrder) {}

  @Transactional(readOnly = true)
  public ReleaseDetail get(UUID org, UUID projectId, int number) {
    ProjectRow project = project(org, projectId);
    ReleaseRow release = release(org, project, number);
    ReleaseRow of =
        release.rollbackOf() == null
            ? null
            : releases.findById(org, release.rollbackOf()).orElse(null);
    return new ReleaseDetail(
        project,
        release,
        of,
        deployments.forRelease(org, release.id()),
        projectEnvironments.list(org, projectId).stream()
            .map(ProjectEnvironmentRow::environment)
            .toList());
  }

  /** The release numbers of the given release ids, for lists. */
  @Transactional(readOnly = true)
  public Map<UUID, Integer> numbers(UUID org, UUID projectId) {
    Map<UUID, Integer> out = new LinkedHashMap<>();
    for (ReleaseRow r : releases.list(org, projectId, Integer.MAX_VALUE)) {
      out.put(r.id(), r.number());
    }
    return out;
  }

  /**
   * A deployment with its release, timeline, approvals, and what each Flux or Argo CD cluster ran
   * of it.
   */
  public record DeploymentDetail(
      DeploymentRow deployment,
      ReleaseRow release,
      List<DeploymentEventRow> timeline,
      Map<ApprovalRow, List<ApprovalVoteRow>> approvals,
      List<DeploymentClusterRow> clusters) {}

  @Transactional(readOnly = true)
  public DeploymentDetail deployment(UUID org, UUID projectId, UUID deploymentId) {
    project(org, projectId);
    DeploymentRow d = deploymentRow(org, projectId, deploymentId);
    Map<ApprovalRow, List<ApprovalVoteRow>> a = new LinkedHashMap<>();
    for (ApprovalRow row : approvals.forSubject(org, deploymentId)) {
      a.put(row, approvals.votes(org, row.id()));
    }
    return new DeploymentDetail(
        d,
        releases.findById(org, d.releaseId()).orElseThrow(),
        deployments.events(org, deploymentId),
        a,
        runtime.forDeployment(org, deploymentId));
  }

  /** Asks the workflow to cancel; only the requester may, and only before anything is written. */
  public DeploymentRow cancel(HubPrincipal caller, UUID projectId, UUID deploymentId) {
    project(caller.orgId(), projectId);
    DeploymentRow d = deploymentRow(caller.orgId(), projectId, deploymentId);
    if (!d.requestedBy().equals(caller.id())) {
      throw ApiException.forbidden("only the requester can cancel a deployment");
    }
    if (!d.status().equals("pending") && !d.status().equals("pending_approval")) {
      throw ApiException.conflict("a deployment that is " + d.status() + " cannot be cancelled");
    }
    String workflowId = workflowId(d);
    if (DeploymentRequest.ROLLBACK.equals(d.action())) {
      temporal.newWorkflowStub(RollbackWorkflow.class, workflowId).cancel(caller.name());
    } else {
      temporal.newWorkflowStub(ReleaseWorkflow.class, workflowId).cancel(caller.name());
    }
    return d;
  }

  /** The id of the workflow that runs a deployment (a rollback's is named by its release). */
  public static String workflowId(DeploymentRow d) {
    return DeploymentRequest.ROLLBACK.equals(d.action())
        ? "rollback-" + d.releaseId()
        : "deployment-" + d.id();
  }

  /**
   * The environments a release's deploys and promotions wrote, whether or not their clusters then
   * ran it ({@code deployed} or {@code degraded}): what a rollback can restore.
   */
  static Set<String> deployedTo(List<DeploymentRow> history) {
    Set<String> out = new LinkedHashSet<>();
    for (DeploymentRow d : history) {
      if ("deployed".equals(d.status()) || "degraded".equals(d.status())) {
        out.addAll(d.environments());
      }
    }
    return out;
  }

  // ---- lookups --------------------------------------------------------------------------

  ProjectRow project(UUID org, UUID projectId) {
    return projects
        .findById(org, projectId)
        .orElseThrow(() -> ApiException.notFound("project " + projectId));
  }

  private ReleaseRow release(UUID org, ProjectRow project, int number) {
    return releases
        .findByNumber(org, project.id(), number)
        .orElseThrow(
            () -> ApiException.notFound("release #" + number + " of project " + project.name()));
  }

  private DeploymentRow deploymentRow(UUID org, UUID projectId, UUID id) {
    return deployments
        .findById(org, id)
        .filter(d -> d.projectId().equals(projectId))
        .orElseThrow(() -> ApiException.notFound("deployment " + id));
  }
}
