package dev.gitopshq.hub.release;

import dev.gitopshq.activities.delivery.ProjectEnvironmentMapper;
import dev.gitopshq.activities.delivery.ProjectEnvironmentRow;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.delivery.ProjectTenantMapper;
import dev.gitopshq.activities.delivery.ProjectTenantRow;
import dev.gitopshq.activities.release.DeploymentMapper;
import dev.gitopshq.activities.release.DeploymentRow;
import dev.gitopshq.activities.release.ReleaseMapper;
import dev.gitopshq.activities.release.ReleaseRow;
import dev.gitopshq.activities.release.RollbackScope;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.workflows.release.DeploymentRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Rolls a project back to an earlier standard release, in every environment it reached or in a
 * scope of environments, tenants and services: a new release of kind rollback with its deployment.
 */
@Service
public class Rollbacks {
  private final DeploymentStarts starts;
  private final ProjectEnvironmentMapper projectEnvironments;
  private final ProjectTenantMapper projectTenants;
  private final ReleaseMapper releases;
  private final DeploymentMapper deployments;

  public Rollbacks(
      DeploymentStarts starts,
      ProjectEnvironmentMapper projectEnvironments,
      ProjectTenantMapper projectTenants,
      ReleaseMapper releases,
      DeploymentMapper deployments) {
    this.starts = starts;
    this.projectEnvironments = projectEnvironments;
    this.projectTenants = projectTenants;
    this.releases = releases;
    this.deployments = deployments;
  }

  @Transactional
  public DeploymentStarts.Created rollback(
      HubPrincipal caller, UUID projectId, ReleaseRequests.Rollback req, RollbackScope scope) {
    UUID org = caller.orgId();
    ProjectRow project = starts.lock(org, projectId);
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
          DeploymentStarts.environment(
              project, envs, e.environment(), "scope[" + i + "].environment");
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
    Set<String> deployedTo = ReleaseService.deployedTo(deployments.forRelease(org, original.id()));
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

    Map<String, Object> details = new LinkedHashMap<>();
    details.put("rollbackOf", original.number());
    details.put("scope", scope.toJsonNode());
    details.put("environments", targets.stream().map(ProjectEnvironmentRow::environment).toList());
    ReleaseRow release =
        starts.insertRelease(
            caller,
            project,
            ReleaseRow.ROLLBACK,
            req.description(),
            original.configRevision(),
            original.sourceCommit(),
            original.id(),
            scope.toJson(),
            details);

    String names =
        targets.stream().map(ProjectEnvironmentRow::environment).collect(Collectors.joining(", "));
    String label = scope.all() ? "" : " " + scopeLabel(scope);
    DeploymentRow deployment =
        starts.start(
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
    return new DeploymentStarts.Created(
        release, deployment, List.of(), ReleaseService.workflowId(deployment));
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
}
