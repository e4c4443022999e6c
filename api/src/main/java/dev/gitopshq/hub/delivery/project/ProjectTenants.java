package dev.gitopshq.hub.delivery.project;

import dev.gitopshq.activities.delivery.ProjectTenantMapper;
import dev.gitopshq.activities.delivery.ProjectTenantRow;
import dev.gitopshq.activities.delivery.TenantMapper;
import dev.gitopshq.activities.delivery.TenantRow;
import dev.gitopshq.activities.delivery.VariableMapper;
import dev.gitopshq.hub.delivery.ProjectChanges.Applied;
import dev.gitopshq.hub.delivery.ProjectChanges.Message;
import dev.gitopshq.hub.delivery.ProjectChanges.Step;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.util.List;
import java.util.UUID;
import org.springframework.stereotype.Service;

/** A project's tenants: which of the organization's tenants it delivers for. */
@Service
public class ProjectTenants {
  private final ConfigSupport support;
  private final TenantMapper orgTenants;
  private final ProjectTenantMapper tenants;
  private final VariableMapper variables;

  public ProjectTenants(
      ConfigSupport support,
      TenantMapper orgTenants,
      ProjectTenantMapper tenants,
      VariableMapper variables) {
    this.support = support;
    this.orgTenants = orgTenants;
    this.tenants = tenants;
    this.variables = variables;
  }

  public List<ProjectTenantRow> tenants(UUID orgId, UUID projectId) {
    support.project(orgId, projectId);
    return tenants.list(orgId, projectId);
  }

  public Applied<ProjectTenantRow> putTenant(HubPrincipal caller, UUID projectId, String name) {
    UUID orgId = caller.orgId();
    return support.apply(
        caller,
        projectId,
        p -> {
          TenantRow t =
              orgTenants
                  .findByName(orgId, name)
                  .orElseThrow(
                      () ->
                          ApiException.invalid(
                              "tenant", "no tenant '" + name + "' in the organization"));
          tenants.insert(orgId, projectId, t.id());
          return new Step<>(
              support.tenant(orgId, projectId, name).orElseThrow(),
              Message.of("Add tenant " + name, "tenant.added", "tenant", name));
        });
  }

  public Applied<Void> deleteTenant(HubPrincipal caller, UUID projectId, String name) {
    UUID orgId = caller.orgId();
    return support.apply(
        caller,
        projectId,
        p -> {
          ProjectTenantRow t =
              support
                  .tenant(orgId, projectId, name)
                  .orElseThrow(ConfigSupport.notInProject("tenant " + name, p));
          variables.deleteForTenant(orgId, projectId, t.tenantId());
          tenants.delete(orgId, projectId, t.tenantId());
          return ConfigSupport.removal(
              Message.of("Remove tenant " + name, "tenant.removed", "tenant", name));
        });
  }

  // ---- workloads ------------------------------------------------------------------------------

}
