package dev.gitopshq.hub.release;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.delivery.ProjectEnvironmentRow;
import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.identity.MemberMapper;
import dev.gitopshq.activities.identity.MemberRow;
import dev.gitopshq.activities.release.ConfigHistory;
import dev.gitopshq.activities.release.DeploymentMapper;
import dev.gitopshq.activities.release.DeploymentRow;
import dev.gitopshq.activities.release.DirectApplies;
import dev.gitopshq.activities.release.DirectApplyMapper;
import dev.gitopshq.activities.release.ReleaseMapper;
import dev.gitopshq.activities.release.ReleaseRow;
import dev.gitopshq.hub.member.PeopleService;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.workflows.TaskQueues;
import dev.gitopshq.workflows.governance.Requester;
import dev.gitopshq.workflows.release.DeploymentRequest;
import dev.gitopshq.workflows.release.ReleaseWorkflow;
import dev.gitopshq.workflows.release.RollbackWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/**
 * What creating a release, promoting one and rolling back share: the deployment row, its audit
 * entry and its workflow, started in the caller's transaction (if Temporal refuses, the rows and
 * audit entries roll back with it), after checking that direct-mode clusters can take it.
 */
@Component
public class DeploymentStarts {
  private final ProjectMapper projects;
  private final ReleaseMapper releases;
  private final DeploymentMapper deployments;
  private final MemberMapper members;
  private final PeopleService people;
  private final AuditLog audit;
  private final WorkflowClient temporal;
  private final ReleaseProperties props;
  private final Clock clock;
  private final DirectApplyMapper directApplies;

  public DeploymentStarts(
      ProjectMapper projects,
      ReleaseMapper releases,
      DeploymentMapper deployments,
      MemberMapper members,
      PeopleService people,
      AuditLog audit,
      WorkflowClient temporal,
      ReleaseProperties props,
      Clock clock,
      DirectApplyMapper directApplies) {
    this.projects = projects;
    this.releases = releases;
    this.deployments = deployments;
    this.members = members;
    this.people = people;
    this.audit = audit;
    this.temporal = temporal;
    this.props = props;
    this.clock = clock;
    this.directApplies = directApplies;
  }

  /** A created release (or rollback) with its first deployment and the changes it collects. */
  public record Created(
      ReleaseRow release,
      DeploymentRow deployment,
      List<ConfigHistory.Change> changes,
      String workflowId) {}

  /** A started promotion. */
  public record Started(DeploymentRow deployment, String workflowId) {}

  /**
   * Numbers and inserts a release of the project (whose lock the caller holds) and audits {@code
   * release.created}: the project, the number, {@code details}, the description.
   */
  ReleaseRow insertRelease(
      HubPrincipal caller,
      ProjectRow project,
      String kind,
      String description,
      long configRevision,
      String sourceCommit,
      UUID rollbackOf,
      String scope,
      Map<String, Object> details) {
    UUID org = caller.orgId();
    ReleaseRow release =
        new ReleaseRow(
            UUID.randomUUID(),
            org,
            project.id(),
            releases.nextNumber(org, project.id()),
            kind,
            description == null ? "" : description.strip(),
            configRevision,
            sourceCommit,
            rollbackOf,
            scope,
            caller.id(),
            caller.name(),
            clock.instant());
    releases.insert(release);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("project", project.name());
    d.put("number", release.number());
    d.putAll(details);
    d.put("description", release.description());
    audit.record(org, caller.actor(), "release.created", "release", release.id().toString(), d);
    return release;
  }

  DeploymentRow start(
      HubPrincipal caller,
      ProjectRow project,
      ReleaseRow release,
      String action,
      List<ProjectEnvironmentRow> targets,
      boolean breakGlass,
      String justification,
      String summary) {
    UUID org = caller.orgId();
    requireDirectDeploy(
        org, project.id(), targets.stream().map(ProjectEnvironmentRow::environment).toList());
    UUID id = UUID.randomUUID();
    String why = breakGlass ? justification.strip() : "";
    deployments.insert(
        id,
        org,
        project.id(),
        release.id(),
        action,
        targets.stream().map(ProjectEnvironmentRow::environmentId).toList(),
        breakGlass,
        why,
        caller.id(),
        caller.name(),
        clock.instant());
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("project", project.name());
    d.put("release", release.number());
    d.put("action", action);
    d.put("environments", targets.stream().map(ProjectEnvironmentRow::environment).toList());
    d.put("breakGlass", breakGlass);
    if (breakGlass) {
      d.put("justification", why);
    }
    audit.record(org, caller.actor(), "deployment.requested", "deployment", id.toString(), d);

    List<String> teams =
        caller.isMember()
            ? members.findById(org, caller.memberId()).map(MemberRow::teams).orElse(List.of())
            : List.of();
    DeploymentRequest request =
        new DeploymentRequest(
            org.toString(),
            project.id().toString(),
            release.id().toString(),
            id.toString(),
            action,
            targets.stream().map(ProjectEnvironmentRow::environment).toList(),
            new Requester(
                caller.id(),
                caller.isMember() ? "member" : "service_account",
                caller.name(),
                caller.role() == null ? "" : caller.role().wireName(),
                teams,
                people.behind(caller)),
            breakGlass,
            breakGlass ? why : null,
            props.approvalTimeout().toSeconds(),
            summary);
    WorkflowOptions options =
        WorkflowOptions.newBuilder()
            .setTaskQueue(TaskQueues.HUB)
            .setWorkflowId(request.workflowId())
            .build();
    // Inside the transaction: if Temporal refuses, the rows and audit entries roll back with it.
    if (DeploymentRequest.ROLLBACK.equals(action)) {
      WorkflowClient.start(temporal.newWorkflowStub(RollbackWorkflow.class, options)::run, request);
    } else {
      WorkflowClient.start(temporal.newWorkflowStub(ReleaseWorkflow.class, options)::run, request);
    }
    return deployments.findById(org, id).orElseThrow();
  }

  /**
   * 409 when a cluster of the environments delivers in direct mode but its agent has not announced
   * direct.deploy: nothing is created. (The workflow checks again before it writes, for an agent
   * that changes its capabilities in between.)
   */
  private void requireDirectDeploy(UUID org, UUID projectId, List<String> environments) {
    String missing =
        DirectApplies.missingCapability(directApplies.targets(org, projectId, environments));
    if (missing != null) {
      throw ApiException.conflict(missing);
    }
  }

  /** The project, locked for the rest of the transaction so release numbers cannot interleave. */
  ProjectRow lock(UUID org, UUID projectId) {
    return projects
        .lock(org, projectId)
        .orElseThrow(() -> ApiException.notFound("project " + projectId));
  }

  ReleaseRow release(UUID org, ProjectRow project, int number) {
    return releases
        .findByNumber(org, project.id(), number)
        .orElseThrow(
            () -> ApiException.notFound("release #" + number + " of project " + project.name()));
  }

  static ProjectEnvironmentRow environment(
      ProjectRow project, List<ProjectEnvironmentRow> envs, String name, String field) {
    return envs.stream()
        .filter(e -> e.environment().equals(name))
        .findFirst()
        .orElseThrow(
            () ->
                ApiException.invalid(
                    field,
                    "is not an environment of project "
                        + project.name()
                        + ": "
                        + envs.stream()
                            .map(ProjectEnvironmentRow::environment)
                            .collect(Collectors.joining(", "))));
  }
}
