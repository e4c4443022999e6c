package dev.gitopshq.hub.delivery.project;

import dev.gitopshq.activities.delivery.BindingMapper;
import dev.gitopshq.activities.delivery.ProjectEnvironmentMapper;
import dev.gitopshq.activities.delivery.ProjectEnvironmentRow;
import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.delivery.ProjectTenantMapper;
import dev.gitopshq.activities.delivery.ProjectTenantRow;
import dev.gitopshq.activities.delivery.WorkloadMapper;
import dev.gitopshq.hub.delivery.Author;
import dev.gitopshq.hub.delivery.ProjectChanges;
import dev.gitopshq.hub.delivery.ProjectChanges.Applied;
import dev.gitopshq.hub.delivery.ProjectChanges.Message;
import dev.gitopshq.hub.delivery.ProjectChanges.Step;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import org.springframework.stereotype.Component;

/**
 * What the services of a project's configuration share: the project (or 404), a change run through
 * {@link ProjectChanges#apply} as the caller (one transaction, one commit of config/), and the
 * lookups of the project's environments, tenants and names.
 */
@Component
class ConfigSupport {
  private final ProjectMapper projects;
  private final ProjectEnvironmentMapper environments;
  private final ProjectTenantMapper tenants;
  private final WorkloadMapper workloads;
  private final BindingMapper bindings;
  private final ProjectChanges changes;

  ConfigSupport(
      ProjectMapper projects,
      ProjectEnvironmentMapper environments,
      ProjectTenantMapper tenants,
      WorkloadMapper workloads,
      BindingMapper bindings,
      ProjectChanges changes) {
    this.projects = projects;
    this.environments = environments;
    this.tenants = tenants;
    this.workloads = workloads;
    this.bindings = bindings;
    this.changes = changes;
  }

  /** The organization's project, or 404. */
  ProjectRow project(UUID orgId, UUID id) {
    return projects.findById(orgId, id).orElseThrow(() -> ApiException.notFound("project " + id));
  }

  /** A configuration change by the caller (the commit's author), as one commit of config/. */
  <T> Applied<T> apply(HubPrincipal caller, UUID projectId, Function<ProjectRow, Step<T>> m) {
    return changes.apply(caller.orgId(), projectId, Author.of(caller), "config", m);
  }

  Optional<ProjectEnvironmentRow> environment(UUID orgId, UUID projectId, String name) {
    return environments.list(orgId, projectId).stream()
        .filter(e -> e.environment().equals(name))
        .findFirst();
  }

  Optional<ProjectTenantRow> tenant(UUID orgId, UUID projectId, String name) {
    return tenants.list(orgId, projectId).stream().filter(t -> t.tenant().equals(name)).findFirst();
  }

  /** The 404 of the project's {@code what} (e.g. "binding web") that is not there. */
  static Supplier<ApiException> notInProject(String what, ProjectRow p) {
    return () -> ApiException.notFound(what + " of project " + p.name());
  }

  /** The step of a removal: nothing to answer, and the commit's message. */
  static Step<Void> removal(Message message) {
    return new Step<>(null, message);
  }

  /** Workloads and bindings share one namespace of names in a project: 409 when it is taken. */
  void nameIsFree(UUID orgId, UUID projectId, String name) {
    if (workloads.findByName(orgId, projectId, name).isPresent()) {
      throw ApiException.conflict("the project already has a workload named '" + name + "'");
    }
    if (bindings.findByName(orgId, projectId, name).isPresent()) {
      throw ApiException.conflict(
          "the project already has a binding named '"
              + name
              + "' (workloads and bindings share names)");
    }
  }
}
