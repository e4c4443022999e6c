package dev.gitopshq.hub.delivery.project;

import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.delivery.BindingMapper;
import dev.gitopshq.activities.delivery.BindingRow;
import dev.gitopshq.activities.delivery.BindingTargetRow;
import dev.gitopshq.activities.delivery.ChartMapper;
import dev.gitopshq.activities.delivery.ChartRow;
import dev.gitopshq.activities.delivery.DeliveryJson;
import dev.gitopshq.activities.delivery.EnvironmentMapper;
import dev.gitopshq.activities.delivery.EnvironmentRow;
import dev.gitopshq.activities.delivery.ProjectEnvironmentClusterRow;
import dev.gitopshq.activities.delivery.ProjectEnvironmentMapper;
import dev.gitopshq.activities.delivery.ProjectEnvironmentRow;
import dev.gitopshq.activities.delivery.ProjectFenceMapper;
import dev.gitopshq.activities.delivery.ProjectFenceRow;
import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.delivery.ProjectTenantMapper;
import dev.gitopshq.activities.delivery.ProjectTenantRow;
import dev.gitopshq.activities.delivery.SourceKind;
import dev.gitopshq.activities.delivery.SourceMapper;
import dev.gitopshq.activities.delivery.SourceRow;
import dev.gitopshq.activities.delivery.TenantMapper;
import dev.gitopshq.activities.delivery.TenantRow;
import dev.gitopshq.activities.delivery.TenantValuesRow;
import dev.gitopshq.activities.delivery.VariableMapper;
import dev.gitopshq.activities.delivery.VariableRow;
import dev.gitopshq.activities.delivery.WorkloadMapper;
import dev.gitopshq.activities.delivery.WorkloadRow;
import dev.gitopshq.agent.v1.TenantFences;
import dev.gitopshq.hub.delivery.Author;
import dev.gitopshq.hub.delivery.ProjectChanges;
import dev.gitopshq.hub.delivery.ProjectChanges.Applied;
import dev.gitopshq.hub.delivery.ProjectChanges.Message;
import dev.gitopshq.hub.delivery.ProjectChanges.Step;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A project's configuration: its environments (with clusters), tenants, workloads, values,
 * variables and bindings. Every change runs through {@link ProjectChanges#apply}: one transaction,
 * one commit of config/.
 */
@Service
public class ProjectConfig {
  private final ProjectMapper projects;
  private final EnvironmentMapper orgEnvironments;
  private final TenantMapper orgTenants;
  private final ClusterMapper clusters;
  private final ChartMapper charts;
  private final SourceMapper sources;
  private final ProjectEnvironmentMapper environments;
  private final ProjectTenantMapper tenants;
  private final WorkloadMapper workloads;
  private final VariableMapper variables;
  private final BindingMapper bindings;
  private final ProjectFenceMapper fences;
  private final ProjectChanges changes;
  private final Clock clock;

  public ProjectConfig(
      ProjectMapper projects,
      EnvironmentMapper orgEnvironments,
      TenantMapper orgTenants,
      ClusterMapper clusters,
      ChartMapper charts,
      SourceMapper sources,
      ProjectEnvironmentMapper environments,
      ProjectTenantMapper tenants,
      WorkloadMapper workloads,
      VariableMapper variables,
      BindingMapper bindings,
      ProjectFenceMapper fences,
      ProjectChanges changes,
      Clock clock) {
    this.projects = projects;
    this.orgEnvironments = orgEnvironments;
    this.orgTenants = orgTenants;
    this.clusters = clusters;
    this.charts = charts;
    this.sources = sources;
    this.environments = environments;
    this.tenants = tenants;
    this.workloads = workloads;
    this.variables = variables;
    this.bindings = bindings;
    this.fences = fences;
    this.changes = changes;
    this.clock = clock;
  }

  private ProjectRow project(UUID orgId, UUID id) {
    return projects.findById(orgId, id).orElseThrow(() -> ApiException.notFound("project " + id));
  }

  private <T> Applied<T> apply(
      HubPrincipal caller, UUID projectId, Function<ProjectRow, Step<T>> m) {
    return changes.apply(caller.orgId(), projectId, Author.of(caller), "config", m);
  }

  // ---- environments ------------------------------------------------------------------------

  /** A project environment with its clusters. */
  public record Environment(
      ProjectEnvironmentRow row, List<ProjectEnvironmentClusterRow> clusters) {}

  @Transactional(readOnly = true)
  public List<Environment> environments(UUID orgId, UUID projectId) {
    project(orgId, projectId);
    return environmentsOf(orgId, projectId);
  }

  private List<Environment> environmentsOf(UUID orgId, UUID projectId) {
    List<ProjectEnvironmentClusterRow> all = environments.clusters(orgId, projectId);
    return environments.list(orgId, projectId).stream()
        .map(
            e ->
                new Environment(
                    e,
                    all.stream().filter(c -> c.environmentId().equals(e.environmentId())).toList()))
        .toList();
  }

  private Optional<ProjectEnvironmentRow> projectEnvironment(
      UUID orgId, UUID projectId, String name) {
    return environments.list(orgId, projectId).stream()
        .filter(e -> e.environment().equals(name))
        .findFirst();
  }

  private Optional<ProjectTenantRow> projectTenant(UUID orgId, UUID projectId, String name) {
    return tenants.list(orgId, projectId).stream().filter(t -> t.tenant().equals(name)).findFirst();
  }

  public Applied<Environment> putEnvironment(
      HubPrincipal caller, UUID projectId, String name, ProjectRequests.ProjectEnvironmentPut req) {
    UUID orgId = caller.orgId();
    return apply(
        caller,
        projectId,
        p -> {
          Checks c = new Checks();
          Optional<EnvironmentRow> env = orgEnvironments.findByName(orgId, name);
          if (env.isEmpty()) {
            c.fail("environment", "no environment '" + name + "' in the organization");
          }
          List<ClusterRow> resolved = new ArrayList<>();
          List<ProjectRequests.ClusterRef> refs =
              req.clusters() == null ? List.of() : req.clusters();
          for (int i = 0; i < refs.size(); i++) {
            Optional<ClusterRow> cluster = clusters.findByName(orgId, refs.get(i).cluster());
            if (cluster.isEmpty()) {
              c.fail(
                  "clusters[" + i + "].cluster",
                  "no cluster '" + refs.get(i).cluster() + "' in the organization");
            } else {
              resolved.add(cluster.get());
            }
          }
          String literal = req.literalNamespace();
          if (literal != null) {
            String refusal =
                TenantFences.namespaceRefusal(
                    fences
                        .find(orgId, projectId)
                        .map(ProjectFenceRow::toProto)
                        .orElse(TenantFences.DEFAULT),
                    literal);
            if (refusal != null) {
              c.fail("namespacePattern", "gives only " + literal + ", which " + refusal);
            }
          }
          c.throwIfInvalid();
          UUID envId = env.get().id();
          boolean existed = projectEnvironment(orgId, projectId, name).isPresent();
          environments.upsert(orgId, projectId, envId, req.pattern());
          environments.setCreateNamespace(orgId, projectId, envId, req.createsNamespace());
          environments.deleteClusters(orgId, projectId, envId);
          for (int i = 0; i < refs.size(); i++) {
            Map<String, Object> overrides =
                refs.get(i).overrides() == null ? Map.of() : refs.get(i).overrides();
            environments.insertCluster(
                orgId,
                projectId,
                envId,
                resolved.get(i).id(),
                DeliveryJson.write(overrides),
                req.modeOf(refs.get(i)));
          }
          Environment view =
              environmentsOf(orgId, projectId).stream()
                  .filter(e -> e.row().environment().equals(name))
                  .findFirst()
                  .orElseThrow();
          String clusterNames =
              String.join(", ", refs.stream().map(ProjectRequests.ClusterRef::cluster).toList());
          String description =
              (existed ? "Update environment " : "Add environment ")
                  + name
                  + (clusterNames.isEmpty() ? " (no clusters)" : " on " + clusterNames);
          return new Step<>(
              view,
              Message.of(
                  description,
                  existed ? "environment.updated" : "environment.added",
                  "environment",
                  name));
        });
  }

  public Applied<Void> deleteEnvironment(HubPrincipal caller, UUID projectId, String name) {
    UUID orgId = caller.orgId();
    return apply(
        caller,
        projectId,
        p -> {
          ProjectEnvironmentRow env =
              projectEnvironment(orgId, projectId, name)
                  .orElseThrow(
                      () ->
                          ApiException.notFound("environment " + name + " of project " + p.name()));
          variables.deleteForEnvironment(orgId, projectId, env.environmentId());
          environments.delete(orgId, projectId, env.environmentId());
          return new Step<>(
              null,
              Message.of("Remove environment " + name, "environment.removed", "environment", name));
        });
  }

  // ---- tenants --------------------------------------------------------------------------------

  @Transactional(readOnly = true)
  public List<ProjectTenantRow> tenants(UUID orgId, UUID projectId) {
    project(orgId, projectId);
    return tenants.list(orgId, projectId);
  }

  public Applied<ProjectTenantRow> putTenant(HubPrincipal caller, UUID projectId, String name) {
    UUID orgId = caller.orgId();
    return apply(
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
              projectTenant(orgId, projectId, name).orElseThrow(),
              Message.of("Add tenant " + name, "tenant.added", "tenant", name));
        });
  }

  public Applied<Void> deleteTenant(HubPrincipal caller, UUID projectId, String name) {
    UUID orgId = caller.orgId();
    return apply(
        caller,
        projectId,
        p -> {
          ProjectTenantRow t =
              projectTenant(orgId, projectId, name)
                  .orElseThrow(
                      () -> ApiException.notFound("tenant " + name + " of project " + p.name()));
          variables.deleteForTenant(orgId, projectId, t.tenantId());
          tenants.delete(orgId, projectId, t.tenantId());
          return new Step<>(
              null, Message.of("Remove tenant " + name, "tenant.removed", "tenant", name));
        });
  }

  // ---- workloads ------------------------------------------------------------------------------

  @Transactional(readOnly = true)
  public List<WorkloadRow> workloads(UUID orgId, UUID projectId) {
    project(orgId, projectId);
    return workloads.list(orgId, projectId);
  }

  @Transactional(readOnly = true)
  public WorkloadRow workload(UUID orgId, UUID projectId, String name) {
    ProjectRow p = project(orgId, projectId);
    return workloads
        .findByName(orgId, projectId, name)
        .orElseThrow(() -> ApiException.notFound("workload " + name + " of project " + p.name()));
  }

  /** The chart version a workload names, or a 400 naming chart / version. */
  private ChartRef chartVersion(UUID orgId, String chart, String version) {
    ChartRow c =
        charts
            .findByName(orgId, chart)
            .orElseThrow(
                () ->
                    ApiException.invalid("chart", "no chart '" + chart + "' in the organization"));
    if (charts.findVersion(orgId, c.id(), version).isEmpty()) {
      throw ApiException.invalid(
          "version", "chart '" + chart + "' has no version '" + version + "'");
    }
    return new ChartRef(c.id(), chart, version);
  }

  private record ChartRef(UUID id, String name, String version) {}

  private void nameIsFree(UUID orgId, UUID projectId, String name) {
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

  public Applied<WorkloadRow> createWorkload(
      HubPrincipal caller, UUID projectId, ProjectRequests.WorkloadWrite req) {
    UUID orgId = caller.orgId();
    return apply(
        caller,
        projectId,
        p -> {
          nameIsFree(orgId, projectId, req.name());
          ChartRef chart = chartVersion(orgId, req.chart(), req.version());
          Instant now = clock.instant();
          workloads.insert(
              new WorkloadRow(
                  UUID.randomUUID(),
                  orgId,
                  projectId,
                  req.name(),
                  chart.id(),
                  chart.name(),
                  chart.version(),
                  null,
                  DeliveryJson.write(req.values() == null ? Map.of() : req.values()),
                  req.tagPath(),
                  now,
                  now,
                  DeliveryJson.write(req.kindScopes() == null ? Map.of() : req.kindScopes())));
          return new Step<>(
              workloads.findByName(orgId, projectId, req.name()).orElseThrow(),
              Message.of(
                  "Create workload "
                      + req.name()
                      + " from chart "
                      + chart.name()
                      + " "
                      + chart.version(),
                  "workload.created",
                  "service",
                  req.name()));
        });
  }

  public Applied<WorkloadRow> updateWorkload(
      HubPrincipal caller, UUID projectId, String name, ProjectRequests.WorkloadWrite req) {
    UUID orgId = caller.orgId();
    return apply(
        caller,
        projectId,
        p -> {
          WorkloadRow w =
              workloads
                  .findByName(orgId, projectId, name)
                  .orElseThrow(
                      () -> ApiException.notFound("workload " + name + " of project " + p.name()));
          ChartRef chart = chartVersion(orgId, req.chart(), req.version());
          workloads.update(
              orgId,
              w.id(),
              chart.id(),
              chart.version(),
              DeliveryJson.write(req.values() == null ? Map.of() : req.values()),
              req.tagPath(),
              clock.instant());
          workloads.setKindScopes(
              orgId,
              projectId,
              name,
              DeliveryJson.write(req.kindScopes() == null ? Map.of() : req.kindScopes()));
          return new Step<>(
              workloads.findByName(orgId, projectId, name).orElseThrow(),
              Message.of(
                  "Update workload "
                      + name
                      + " (chart "
                      + chart.name()
                      + " "
                      + chart.version()
                      + ")",
                  "workload.updated",
                  "service",
                  name));
        });
  }

  public Applied<Void> deleteWorkload(HubPrincipal caller, UUID projectId, String name) {
    UUID orgId = caller.orgId();
    return apply(
        caller,
        projectId,
        p -> {
          WorkloadRow w =
              workloads
                  .findByName(orgId, projectId, name)
                  .orElseThrow(
                      () -> ApiException.notFound("workload " + name + " of project " + p.name()));
          workloads.delete(orgId, w.id());
          return new Step<>(
              null, Message.of("Delete workload " + name, "workload.deleted", "service", name));
        });
  }

  /**
   * Sets a workload's image tag at its image tag path in its default values (the image-update
   * webhook), as the given author.
   */
  public Applied<WorkloadRow> setImageTag(
      UUID orgId, UUID projectId, String workload, String tag, Author author) {
    return changes.apply(
        orgId,
        projectId,
        author,
        "webhook",
        p -> {
          WorkloadRow w =
              workloads
                  .findByName(orgId, projectId, workload)
                  .orElseThrow(
                      () ->
                          ApiException.notFound(
                              "workload " + workload + " of project " + p.name()));
          Map<String, Object> values = w.valueMap();
          setPath(values, w.imageTagPath(), tag);
          workloads.update(
              orgId,
              w.id(),
              w.chartId(),
              w.chartVersion(),
              DeliveryJson.write(values),
              w.imageTagPath(),
              clock.instant());
          return new Step<>(
              workloads.findByName(orgId, projectId, workload).orElseThrow(),
              Message.of(
                  "Set image tag of " + workload + " to " + tag,
                  "workload.image_updated",
                  "service",
                  workload));
        });
  }

  /** Sets a dotted path in nested values, creating the objects on the way. */
  @SuppressWarnings("unchecked")
  static void setPath(Map<String, Object> values, String path, Object value) {
    String[] keys = path.split("\\.");
    Map<String, Object> at = values;
    for (int i = 0; i < keys.length - 1; i++) {
      Object next = at.get(keys[i]);
      if (next == null) {
        next = new TreeMap<String, Object>();
        at.put(keys[i], next);
      } else if (!(next instanceof Map)) {
        throw ApiException.conflict(
            "the values at '"
                + String.join(".", Arrays.copyOf(keys, i + 1))
                + "' are not an object, so "
                + path
                + " cannot be set");
      }
      at = (Map<String, Object>) next;
    }
    at.put(keys[keys.length - 1], value);
  }

  // ---- tenant-environment values
  // -----------------------------------------------------------------

  @Transactional(readOnly = true)
  public List<TenantValuesRow> values(UUID orgId, UUID projectId) {
    project(orgId, projectId);
    return workloads.values(orgId, projectId);
  }

  /** The ids of a workload, a tenant and an environment of the project, or 404 / 400. */
  private record ValuesKey(WorkloadRow workload, UUID tenantId, UUID environmentId) {}

  private ValuesKey valuesKey(ProjectRow p, String workload, String tenant, String environment) {
    UUID orgId = p.orgId();
    WorkloadRow w =
        workloads
            .findByName(orgId, p.id(), workload)
            .orElseThrow(
                () -> ApiException.notFound("workload " + workload + " of project " + p.name()));
    Checks c = new Checks();
    Optional<ProjectTenantRow> t = projectTenant(orgId, p.id(), tenant);
    if (t.isEmpty()) {
      c.fail("tenant", "tenant '" + tenant + "' is not a tenant of project " + p.name());
    }
    Optional<ProjectEnvironmentRow> e = projectEnvironment(orgId, p.id(), environment);
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
    ValuesKey k = valuesKey(project(orgId, projectId), workload, tenant, environment);
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
    return apply(
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
    return apply(
        caller,
        projectId,
        p -> {
          ValuesKey k = valuesKey(p, workload, tenant, environment);
          if (workloads.deleteValues(orgId, k.workload().id(), k.tenantId(), k.environmentId())
              == 0) {
            throw ApiException.notFound(
                "values of " + workload + " for " + tenant + " in " + environment);
          }
          return new Step<>(
              null,
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

  @Transactional(readOnly = true)
  public List<VariableRow> variables(UUID orgId, UUID projectId) {
    project(orgId, projectId);
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
      Optional<ProjectEnvironmentRow> e = projectEnvironment(p.orgId(), p.id(), environment);
      if (e.isEmpty()) {
        c.fail(
            "environment",
            "environment '" + environment + "' is not an environment of project " + p.name());
      } else {
        envId = e.get().environmentId();
      }
    }
    if (tenant != null) {
      Optional<ProjectTenantRow> t = projectTenant(p.orgId(), p.id(), tenant);
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
    return apply(
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
    return apply(
        caller,
        projectId,
        p -> {
          VariableKey k = variableKey(p, scope, environment, tenant, service);
          if (variables.delete(
                  orgId, k.scope(), projectId, k.environmentId(), k.tenantId(), k.service(), key)
              == 0) {
            throw ApiException.notFound("variable " + key + k.describe());
          }
          return new Step<>(
              null,
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

  /** A binding with its targets. */
  public record Binding(BindingRow row, List<BindingTargetRow> targets) {}

  @Transactional(readOnly = true)
  public List<Binding> bindings(UUID orgId, UUID projectId) {
    project(orgId, projectId);
    return bindingsOf(orgId, projectId);
  }

  @Transactional(readOnly = true)
  public Binding binding(UUID orgId, UUID projectId, String name) {
    ProjectRow p = project(orgId, projectId);
    return bindingsOf(orgId, projectId).stream()
        .filter(b -> b.row().name().equals(name))
        .findFirst()
        .orElseThrow(() -> ApiException.notFound("binding " + name + " of project " + p.name()));
  }

  private List<Binding> bindingsOf(UUID orgId, UUID projectId) {
    List<BindingTargetRow> targets = bindings.targets(orgId, projectId);
    return bindings.list(orgId, projectId).stream()
        .map(
            b ->
                new Binding(b, targets.stream().filter(t -> t.bindingId().equals(b.id())).toList()))
        .toList();
  }

  /** Resolves a binding body's source and targets, or a 400 naming each bad field. */
  private record Resolved(
      SourceKind kind, SourceRow source, List<UUID[]> targets, String overlays) {}

  private Resolved resolve(ProjectRow p, ProjectRequests.BindingWrite req) {
    UUID orgId = p.orgId();
    SourceKind kind = SourceKind.ofBindingKind(req.kind());
    Checks c = new Checks();
    Optional<SourceRow> source = sources.findByName(kind, orgId, req.source());
    if (source.isEmpty()) {
      c.fail("source", "no " + kind.label() + " '" + req.source() + "' in the organization");
    }
    List<UUID[]> targets = new ArrayList<>();
    List<ProjectRequests.TargetRef> refs = req.targets() == null ? List.of() : req.targets();
    Map<String, UUID> tenantIds = new LinkedHashMap<>();
    tenants.list(orgId, p.id()).forEach(t -> tenantIds.put(t.tenant(), t.tenantId()));
    Map<String, UUID> envIds = new LinkedHashMap<>();
    environments.list(orgId, p.id()).forEach(e -> envIds.put(e.environment(), e.environmentId()));
    for (int i = 0; i < refs.size(); i++) {
      UUID t = tenantIds.get(refs.get(i).tenant());
      UUID e = envIds.get(refs.get(i).environment());
      if (t == null) {
        c.fail(
            "targets[" + i + "].tenant",
            "'" + refs.get(i).tenant() + "' is not a tenant of project " + p.name());
      }
      if (e == null) {
        c.fail(
            "targets[" + i + "].environment",
            "'" + refs.get(i).environment() + "' is not an environment of project " + p.name());
      }
      targets.add(new UUID[] {t, e});
    }
    c.throwIfInvalid();
    List<Map<String, Object>> overlays = new ArrayList<>();
    for (ProjectRequests.OverlayRef o :
        req.overlays() == null ? List.<ProjectRequests.OverlayRef>of() : req.overlays()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("kind", o.kind());
      m.put("name", o.name() == null || o.name().isEmpty() ? null : o.name());
      m.put("patch", o.patch());
      overlays.add(m);
    }
    return new Resolved(kind, source.get(), targets, DeliveryJson.write(overlays));
  }

  private void writeTargets(UUID orgId, UUID projectId, UUID bindingId, List<UUID[]> targets) {
    bindings.deleteTargets(orgId, bindingId);
    for (UUID[] t : targets) {
      bindings.insertTarget(orgId, bindingId, projectId, t[0], t[1]);
    }
  }

  private static String label(Resolved r, String name) {
    return (r.kind() == SourceKind.KUSTOMIZE ? "Kustomize binding " : "manifest binding ")
        + name
        + " of "
        + r.kind().label()
        + " "
        + r.source().name();
  }

  public Applied<Binding> createBinding(
      HubPrincipal caller, UUID projectId, ProjectRequests.BindingWrite req) {
    UUID orgId = caller.orgId();
    return apply(
        caller,
        projectId,
        p -> {
          nameIsFree(orgId, projectId, req.name());
          Resolved r = resolve(p, req);
          Instant now = clock.instant();
          UUID id = UUID.randomUUID();
          bindings.insert(
              new BindingRow(
                  id,
                  orgId,
                  projectId,
                  req.name(),
                  req.kind(),
                  r.source().id(),
                  null,
                  r.overlays(),
                  now,
                  now,
                  DeliveryJson.write(req.kindScopes() == null ? Map.of() : req.kindScopes())));
          writeTargets(orgId, projectId, id, r.targets());
          return new Step<>(
              bindingsOf(orgId, projectId).stream()
                  .filter(b -> b.row().id().equals(id))
                  .findFirst()
                  .orElseThrow(),
              Message.of(
                  "Create " + label(r, req.name()), "binding.created", "service", req.name()));
        });
  }

  public Applied<Binding> updateBinding(
      HubPrincipal caller, UUID projectId, String name, ProjectRequests.BindingWrite req) {
    UUID orgId = caller.orgId();
    return apply(
        caller,
        projectId,
        p -> {
          BindingRow b =
              bindings
                  .findByName(orgId, projectId, name)
                  .orElseThrow(
                      () -> ApiException.notFound("binding " + name + " of project " + p.name()));
          Resolved r = resolve(p, req);
          bindings.update(
              orgId, b.id(), req.kind(), r.source().id(), r.overlays(), clock.instant());
          bindings.setKindScopes(
              orgId,
              projectId,
              name,
              DeliveryJson.write(req.kindScopes() == null ? Map.of() : req.kindScopes()));
          writeTargets(orgId, projectId, b.id(), r.targets());
          return new Step<>(
              bindingsOf(orgId, projectId).stream()
                  .filter(x -> x.row().id().equals(b.id()))
                  .findFirst()
                  .orElseThrow(),
              Message.of("Update " + label(r, name), "binding.updated", "service", name));
        });
  }

  public Applied<Void> deleteBinding(HubPrincipal caller, UUID projectId, String name) {
    UUID orgId = caller.orgId();
    return apply(
        caller,
        projectId,
        p -> {
          BindingRow b =
              bindings
                  .findByName(orgId, projectId, name)
                  .orElseThrow(
                      () -> ApiException.notFound("binding " + name + " of project " + p.name()));
          bindings.delete(orgId, b.id());
          return new Step<>(
              null, Message.of("Delete binding " + name, "binding.deleted", "service", name));
        });
  }
}
