package dev.gitopshq.hub.delivery.project;

import dev.gitopshq.activities.delivery.DeliveryJson;
import dev.gitopshq.activities.delivery.ProjectEnvironmentRow;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.delivery.ProjectTenantRow;
import dev.gitopshq.activities.delivery.TenantValuesRow;
import dev.gitopshq.activities.delivery.WorkloadMapper;
import dev.gitopshq.activities.delivery.WorkloadRow;
import dev.gitopshq.hub.delivery.ProjectChanges.Applied;
import dev.gitopshq.hub.delivery.ProjectChanges.Message;
import dev.gitopshq.hub.delivery.ProjectChanges.Step;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Values per workload, tenant and environment, merged over the workload's defaults. */
@Service
public class ProjectValues {
  private final ConfigSupport support;
  private final WorkloadMapper workloads;
  private final Clock clock;

  public ProjectValues(ConfigSupport support, WorkloadMapper workloads, Clock clock) {
    this.support = support;
    this.workloads = workloads;
    this.clock = clock;
  }

  public List<TenantValuesRow> values(UUID orgId, UUID projectId) {
    support.project(orgId, projectId);
    return workloads.values(orgId, projectId);
  }

  /** The ids of a workload, a tenant and an environment of the project, or 404 / 400. */
  private record ValuesKey(WorkloadRow workload, UUID tenantId, UUID environmentId) {}

  private ValuesKey valuesKey(ProjectRow p, String workload, String tenant, String environment) {
    UUID orgId = p.orgId();
    WorkloadRow w =
        workloads
            .findByName(orgId, p.id(), workload)
            .orElseThrow(ConfigSupport.notInProject("workload " + workload, p));
    Checks c = new Checks();
    Optional<ProjectTenantRow> t = support.tenant(orgId, p.id(), tenant);
    if (t.isEmpty()) {
      c.fail("tenant", "tenant '" + tenant + "' is not a tenant of project " + p.name());
    }
    Optional<ProjectEnvironmentRow> e = support.environment(orgId, p.id(), environment);
    if (e.isEmpty()) {
      c.fail(
          "environment",
          "environment '" + environment + "' is not an environment of project " + p.name());
    }
    c.throwIfInvalid();
    return new ValuesKey(w, t.get().tenantId(), e.get().environmentId());
  }

  @Transactional(readOnly = true)
  public TenantValuesRow values(
      UUID orgId, UUID projectId, String workload, String tenant, String environment) {
    ValuesKey k = valuesKey(support.project(orgId, projectId), workload, tenant, environment);
    return workloads
        .findValues(orgId, k.workload().id(), k.tenantId(), k.environmentId())
        .orElseThrow(
            () ->
                ApiException.notFound(
                    "values of " + workload + " for " + tenant + " in " + environment));
  }

  public Applied<TenantValuesRow> putValues(
      HubPrincipal caller,
      UUID projectId,
      String workload,
      String tenant,
      String environment,
      Map<String, Object> values) {
    UUID orgId = caller.orgId();
    return support.apply(
        caller,
        projectId,
        p -> {
          ValuesKey k = valuesKey(p, workload, tenant, environment);
          workloads.upsertValues(
              orgId,
              projectId,
              k.workload().id(),
              k.tenantId(),
              k.environmentId(),
              DeliveryJson.write(values),
              caller.id(),
              clock.instant());
          return new Step<>(
              workloads
                  .findValues(orgId, k.workload().id(), k.tenantId(), k.environmentId())
                  .orElseThrow(),
              Message.of(
                  "Set values of " + workload + " for " + tenant + " in " + environment,
                  "values.updated",
                  "environment",
                  environment,
                  "tenant",
                  tenant,
                  "service",
                  workload));
        });
  }

  public Applied<Void> deleteValues(
      HubPrincipal caller, UUID projectId, String workload, String tenant, String environment) {
    UUID orgId = caller.orgId();
    return support.apply(
        caller,
        projectId,
        p -> {
          ValuesKey k = valuesKey(p, workload, tenant, environment);
          if (workloads.deleteValues(orgId, k.workload().id(), k.tenantId(), k.environmentId())
              == 0) {
            throw ApiException.notFound(
                "values of " + workload + " for " + tenant + " in " + environment);
          }
          return ConfigSupport.removal(
              Message.of(
                  "Remove values of " + workload + " for " + tenant + " in " + environment,
                  "values.removed",
                  "environment",
                  environment,
                  "tenant",
                  tenant,
                  "service",
                  workload));
        });
  }

  // ---- variables --------------------------------------------------------------------------------

}
