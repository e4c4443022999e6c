package dev.gitopshq.hub.delivery.project;

import dev.gitopshq.activities.delivery.ProjectEnvironmentRow;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.delivery.ProjectTenantRow;
import dev.gitopshq.activities.delivery.VariableMapper;
import dev.gitopshq.activities.delivery.VariableRow;
import dev.gitopshq.hub.delivery.ProjectChanges.Applied;
import dev.gitopshq.hub.delivery.ProjectChanges.Message;
import dev.gitopshq.hub.delivery.ProjectChanges.Step;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;

/** A project's variables: for the project, an environment, a tenant or a service. */
@Service
public class ProjectVariables {
  private final ConfigSupport support;
  private final VariableMapper variables;
  private final Clock clock;

  public ProjectVariables(ConfigSupport support, VariableMapper variables, Clock clock) {
    this.support = support;
    this.variables = variables;
    this.clock = clock;
  }

  public List<VariableRow> variables(UUID orgId, UUID projectId) {
    support.project(orgId, projectId);
    return variables.listProject(orgId, projectId);
  }

  private record VariableKey(
      String scope, UUID environmentId, UUID tenantId, String service, String describe) {}

  private VariableKey variableKey(
      ProjectRow p, String scope, String environment, String tenant, String service) {
    Checks c = new Checks();
    UUID envId = null;
    UUID tenantId = null;
    if (environment != null) {
      Optional<ProjectEnvironmentRow> e = support.environment(p.orgId(), p.id(), environment);
      if (e.isEmpty()) {
        c.fail(
            "environment",
            "environment '" + environment + "' is not an environment of project " + p.name());
      } else {
        envId = e.get().environmentId();
      }
    }
    if (tenant != null) {
      Optional<ProjectTenantRow> t = support.tenant(p.orgId(), p.id(), tenant);
      if (t.isEmpty()) {
        c.fail("tenant", "tenant '" + tenant + "' is not a tenant of project " + p.name());
      } else {
        tenantId = t.get().tenantId();
      }
    }
    c.throwIfInvalid();
    String describe =
        switch (scope) {
          case "environment" -> " in environment " + environment;
          case "tenant" -> " for tenant " + tenant;
          case "service" -> " of service " + service;
          default -> " of the project";
        };
    return new VariableKey(scope, envId, tenantId, service, describe);
  }

  public Applied<VariableRow> putVariable(
      HubPrincipal caller, UUID projectId, ProjectRequests.ProjectVariablePut req) {
    UUID orgId = caller.orgId();
    return support.apply(
        caller,
        projectId,
        p -> {
          VariableKey k =
              variableKey(p, req.scope(), req.environment(), req.tenant(), req.service());
          variables.upsert(
              UUID.randomUUID(),
              orgId,
              k.scope(),
              projectId,
              k.environmentId(),
              k.tenantId(),
              k.service(),
              req.key(),
              req.value(),
              caller.id(),
              clock.instant());
          VariableRow row =
              variables.listProject(orgId, projectId).stream()
                  .filter(
                      v ->
                          v.scope().equals(k.scope())
                              && v.key().equals(req.key())
                              && Objects.equals(v.environmentId(), k.environmentId())
                              && Objects.equals(v.tenantId(), k.tenantId())
                              && Objects.equals(v.service(), k.service()))
                  .findFirst()
                  .orElseThrow();
          return new Step<>(
              row,
              Message.of(
                  "Set variable " + req.key() + k.describe(),
                  "variable.set",
                  "environment",
                  req.environment(),
                  "tenant",
                  req.tenant(),
                  "service",
                  req.service()));
        });
  }

  public Applied<Void> deleteVariable(
      HubPrincipal caller,
      UUID projectId,
      String scope,
      String environment,
      String tenant,
      String service,
      String key) {
    UUID orgId = caller.orgId();
    return support.apply(
        caller,
        projectId,
        p -> {
          VariableKey k = variableKey(p, scope, environment, tenant, service);
          if (variables.delete(
                  orgId, k.scope(), projectId, k.environmentId(), k.tenantId(), k.service(), key)
              == 0) {
            throw ApiException.notFound("variable " + key + k.describe());
          }
          return ConfigSupport.removal(
              Message.of(
                  "Remove variable " + key + k.describe(),
                  "variable.removed",
                  "environment",
                  environment,
                  "tenant",
                  tenant,
                  "service",
                  service));
        });
  }

  // ---- bindings ---------------------------------------------------------------------------------

}
