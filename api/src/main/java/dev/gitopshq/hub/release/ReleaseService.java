package dev.gitopshq.hub.release;

import dev.gitopshq.activities.approval.ApprovalMapper;
import dev.gitopshq.activities.approval.ApprovalRow;
import dev.gitopshq.activities.approval.ApprovalVoteRow;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.delivery.ProjectEnvironmentMapper;
import dev.gitopshq.activities.delivery.ProjectEnvironmentRow;
import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.delivery.ProjectTenantMapper;
import dev.gitopshq.activities.delivery.ProjectTenantRow;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.identity.MemberMapper;
import dev.gitopshq.activities.identity.MemberRow;
import dev.gitopshq.activities.release.ConfigHistory;
import dev.gitopshq.activities.release.DeploymentClusterRow;
import dev.gitopshq.activities.release.DeploymentEventRow;
import dev.gitopshq.activities.release.DeploymentMapper;
import dev.gitopshq.activities.release.DeploymentRow;
import dev.gitopshq.activities.release.DirectApplies;
import dev.gitopshq.activities.release.DirectApplyMapper;
import dev.gitopshq.activities.release.ReleaseMapper;
import dev.gitopshq.activities.release.ReleaseRow;
import dev.gitopshq.activities.release.RollbackScope;
import dev.gitopshq.activities.release.RuntimeMapper;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Creates releases, promotions and rollbacks (rows, audit entries and the workflow in one
 * transaction, under the project's lock so release numbers and configuration revisions cannot
 * interleave) and reads them back.
 */
@Service
public class ReleaseService {
  /** How many configuration changes a release lists at most. */
  static final int MAX_LISTED_CHANGES = 100;

  private final ProjectMapper projects;
  private final ProjectEnvironmentMapper projectEnvironments;
  private final ProjectTenantMapper projectTenants;
  private final ReleaseMapper releases;
  private final DeploymentMapper deployments;
  private final MemberMapper members;
  private final PeopleService people;
  private final ApprovalMapper approvals;
  private final ProjectRepos repos;
  private final ConfigHistory history;
  private final AuditLog audit;
  private final WorkflowClient temporal;
  private final ReleaseProperties props;
  private final Clock clock;
  private final DirectApplyMapper directApplies;
  private final RuntimeMapper runtime;

  public ReleaseService(
      ProjectMapper projects,
      ProjectEnvironmentMapper projectEnvironments,
      ProjectTenantMapper projectTenants,
      ReleaseMapper releases,
      DeploymentMapper deployments,
      MemberMapper members,
      PeopleService people,
      ApprovalMapper approvals,
      ProjectRepos repos,
      ConfigHistory history,
      AuditLog audit,
      WorkflowClient temporal,
      ReleaseProperties props,
      Clock clock,
      DirectApplyMapper directApplies,
      RuntimeMapper runtime) {
    this.directApplies = directApplies;
    this.runtime = runtime;
    this.projects = projects;
    this.projectEnvironments = projectEnvironments;
    this.projectTenants = projectTenants;
    this.releases = releases;
    this.deployments = deployments;
    this.members = members;
    this.people = people;
    this.approvals = approvals;
    this.repos = repos;
    this.history = history;
    this.audit = audit;
    this.temporal = temporal;
    this.props = props;
    this.clock = clock;
  }

  /** A created release (or rollback) with its first deployment and the changes it collects. */
  public record Created(
      ReleaseRow release,
      DeploymentRow deployment,
      List<ConfigHistory.Change> changes,
      String workflowId) {}

  /** A started promotion. */
  public record Started(DeploymentRow deployment, String workflowId) {}

  // ---- releases -------------------------------------------------------------------------

  @Transactional
  public Created create(HubPrincipal caller, UUID projectId, ReleaseRequests.Create req) {
    UUID org = caller.orgId();
    ProjectRow project = lock(org, projectId);
    List<ProjectEnvironmentRow> envs = projectEnvironments.list(org, projectId);
    if (envs.isEmpty()) {
      throw ApiException.conflict(
          "project " + project.name() + " has no environments to release to");
    }
    ProjectEnvironmentRow target =
        req.environment() == null
            ? envs.getFirst()
            : environment(project, envs, req.environment(), "environment");

    ReleaseRow previous = releases.previousStandard(org, projectId, null).orElse(null);
    long previousRevision = previous == null ? 0 : previous.configRevision();
    long revision = project.configRevision();
    if (revision <= previousRevision) {
      throw ApiException.conflict(
          "nothing to release: the configuration of "
              + project.name()
              + " has not changed since "
              + (previous == null ? "the project was created" : "release #" + previous.number()));
    }
    List<ConfigHistory.Change> changes =
        repos.exists(org, projectId)
            ? history.changesAtHead(
                org, projectId, 0, Math.min(revision - previousRevision, MAX_LISTED_CHANGES))
            : List.of();

    Instant now = clock.instant();
    ReleaseRow release =
        new ReleaseRow(
            UUID.randomUUID(),
            org,
            projectId,
            releases.nextNumber(org, projectId),
            ReleaseRow.STANDARD,
            req.description() == null ? "" : req.description().strip(),
            revision,
            null,
            null,
            null,
            caller.id(),
            caller.name(),
            now);
    releases.insert(release);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("project", project.name());
    d.put("number", release.number());
    d.put("configRevision", revision);
    d.put("previousRelease", previous == null ? null : previous.number());
    d.put("changes", revision - previousRevision);
    d.put("description", release.description());
    audit.record(org, caller.actor(), "release.created", "release", release.id().toString(), d);

    DeploymentRow deployment =
        startDeployment(
            caller,
            project,
            release,
            DeploymentRequest.DEPLOY,
            List.of(target),
            Boolean.TRUE.equals(req.breakGlass()),
            req.justification(),
            "Deploy release #"
                + release.number()
                + " of "
                + project.name()
                + " to "
                + target.environment());
    return new Created(release, deployment, changes, workflowId(deployment));
  }

  @Transactional
  public Started promote(
      HubPrincipal caller, UUID projectId, int number, ReleaseRequests.Promote req) {
    UUID org = caller.orgId();
    ProjectRow project = lock(org, projectId);
    ReleaseRow release = release(org, project, number);
    if (release.isRollback()) {
      throw ApiException.conflict(
          "release #"
              + number
              + " is a rollback; promote the release it restores, or create a new release");
    }
    List<ProjectEnvironmentRow> envs = projectEnvironments.list(org, projectId);
    List<String> order = envs.stream().map(ProjectEnvironmentRow::environment).toList();
    List<DeploymentRow> history = deployments.forRelease(org, release.id());
    // Promotion goes on from an environment whose clusters ran the release; from one where it was
    // written but a cluster did not run it (degraded), only under break-glass.
    boolean breakGlass = Boolean.TRUE.equals(req.breakGlass());
    Set<String> verified = verifiedIn(history);
    Set<String> written = deployedTo(history);
    Set<String> deployedTo = breakGlass ? written : verified;

    ProjectEnvironmentRow target;
    if (req.environment() != null) {
      target = environment(project, envs, req.environment(), "environment");
      int i = order.indexOf(target.environment());
      if (i == 0) {
        throw ApiException.conflict(
            target.environment()
                + " is the first environment of "
                + project.name()
                + ": releases are deployed there when they are created, not promoted");
      }
      String before = order.get(i - 1);
      if (!deployedTo.contains(before) && written.contains(before)) {
        throw unverified(number, before, history);
      }
      if (!deployedTo.contains(before)) {
        throw ApiException.conflict(
            "release #"
                + number
                + " is not deployed to "
                + before
                + ", the environment before "
                + target.environment());
      }
    } else {
      int furthest = -1;
      int furthestWritten = -1;
      for (int i = 0; i < order.size(); i++) {
        if (deployedTo.contains(order.get(i))) {
          furthest = i;
        }
        if (written.contains(order.get(i))) {
          furthestWritten = i;
        }
      }
      if (furthestWritten > furthest) {
        throw unverified(number, order.get(furthestWritten), history);
      }
      if (furthest < 0) {
        throw ApiException.conflict(
            "release #" + number + " is not deployed to any environment yet");
      }
      if (furthest == order.size() - 1) {
        throw ApiException.conflict(
            "release #"
                + number
                + " is already in "
                + order.getLast()
                + ", the last environment of "
                + project.name());
      }
      target = envs.get(furthest + 1);
    }
    for (DeploymentRow d : history) {
      if (!d.isFinal() && d.environments().contains(target.environment())) {
        throw ApiException.conflict(
            "release #"
                + number
                + " is already on its way to "
                + target.environment()
                + " (deployment "
                + d.id()
                + " is "
                + d.status()
                + ")");
      }
    }
    DeploymentRow deployment =
        startDeployment(
            caller,
            project,
            release,
            DeploymentRequest.PROMOTE,
            List.of(target),
            breakGlass,
            req.justification(),
            "Promote release #" + number + " of " + project.name() + " to " + target.environment());
    return new Started(deployment, workflowId(deployment));
  }

  /** The 409 of a promotion from an environment where the release is degraded. */
  private static ApiException unverified(
      int number, String environment, List<DeploymentRow> history) {
    String why =
        history.stream()
            .filter(d -> "degraded".equals(d.status()) && d.environments().contains(environment))
            .map(DeploymentRow::detail)
            .reduce((a, b) -> b)
            .orElse("");
    return ApiException.conflict(
        "release #"
            + number
            + " is degraded in "
            + environment
            + ": its commit was written but not every cluster ran it"
            + (why.isEmpty() ? "" : " (" + why + ")")
            + "; promoting from an unverified environment needs breakGlass with a justification");
  }

  @Transactional
  public Created rollback(
      HubPrincipal caller, UUID projectId, ReleaseRequests.Rollback req, RollbackScope scope) {
    UUID org = caller.orgId();
    ProjectRow project = lock(org, projectId);
    ReleaseRow original =
        releases
            .findByNumber(org, projectId, req.toRelease())
            .orElseThrow(
                () ->
                    ApiException.invalid(
                        "toRelease",
                        "project " + project.name() + " has no release #" + req.toRelease()));
    if (original.isRollback()) {
      throw ApiException.conflict(
          "release #"
              + original.number()
              + " is itself a rollback; roll back to a standard release");
    }
    List<ProjectEnvironmentRow> envs = projectEnvironments.list(org, projectId);
    Set<String> tenants =
        projectTenants.list(org, projectId).stream()
            .map(ProjectTenantRow::tenant)
            .collect(Collectors.toSet());
    if (!scope.all()) {
      for (int i = 0; i < scope.entries().size(); i++) {
        RollbackScope.Entry e = scope.entries().get(i);
        if (e.environment() != null) {
          environment(project, envs, e.environment(), "scope[" + i + "].environment");
        }
        if (e.tenant() != null && !tenants.contains(e.tenant())) {
          throw ApiException.invalid(
              "scope[" + i + "].tenant",
              "is not a tenant of project "
                  + project.name()
                  + ": "
                  + String.join(", ", new TreeSet<>(tenants)));
        }
      }
    }
    Set<String> deployedTo = deployedTo(deployments.forRelease(org, original.id()));
    List<ProjectEnvironmentRow> targets = new ArrayList<>();
    for (ProjectEnvironmentRow env : envs) {
      if (!scope.touches(env.environment())) {
        continue;
      }
      boolean named =
          !scope.all()
              && scope.forEnvironment(env.environment()).stream()
                  .anyMatch(e -> env.environment().equals(e.environment()));
      if (deployedTo.contains(env.environment())) {
        targets.add(env);
      } else if (named) {
        throw ApiException.conflict(
            "release #"
                + original.number()
                + " was never deployed to "
                + env.environment()
                + ": there is nothing of it to restore there");
      }
    }
    if (targets.isEmpty()) {
      throw ApiException.conflict(
          "release #"
              + original.number()
              + " was never deployed to "
              + (scope.all() ? "any environment" : "an environment of the scope"));
    }

    Instant now = clock.instant();
    ReleaseRow release =
        new ReleaseRow(
            UUID.randomUUID(),
            org,
            projectId,
            releases.nextNumber(org, projectId),
            ReleaseRow.ROLLBACK,
            req.description() == null ? "" : req.description().strip(),
            original.configRevision(),
            original.sourceCommit(),
            original.id(),
            scope.toJson(),
            caller.id(),
            caller.name(),
            now);
    releases.insert(release);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("project", project.name());
    d.put("number", release.number());
    d.put("rollbackOf", original.number());
    d.put("scope", scope.toJsonNode());
    d.put("environments", targets.stream().map(ProjectEnvironmentRow::environment).toList());
    d.put("description", release.description());
    audit.record(org, caller.actor(), "release.created", "release", release.id().toString(), d);

    String names =
        targets.stream().map(ProjectEnvironmentRow::environment).collect(Collectors.joining(", "));
    String label = scope.all() ? "" : " " + scopeLabel(scope);
    DeploymentRow deployment =
        startDeployment(
            caller,
            project,
            release,
            DeploymentRequest.ROLLBACK,
            targets,
            Boolean.TRUE.equals(req.breakGlass()),
            req.justification(),
            "Roll back "
                + project.name()
                + " "
                + names
                + " to release #"
                + original.number()
                + label);
    return new Created(release, deployment, List.of(), workflowId(deployment));
  }

  /** e.g. {@code (staging: tenant acme; service web)}. */
  static String scopeLabel(RollbackScope scope) {
    List<String> parts = new ArrayList<>();
    for (RollbackScope.Entry e : scope.entries()) {
      String l = e.label();
      parts.add(e.environment() == null ? l : e.environment() + (l.isEmpty() ? "" : ": " + l));
    }
    return "(" + String.join("; ", parts) + ")";
  }

  private DeploymentRow startDeployment(
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

  /** The environments whose clusters ran one of the release's deployments ({@code deployed}). */
  static Set<String> verifiedIn(List<DeploymentRow> history) {
    Set<String> out = new LinkedHashSet<>();
    for (DeploymentRow d : history) {
      if ("deployed".equals(d.status())) {
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

  private ProjectRow lock(UUID org, UUID projectId) {
    return projects
        .lock(org, projectId)
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

  private static ProjectEnvironmentRow environment(
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
