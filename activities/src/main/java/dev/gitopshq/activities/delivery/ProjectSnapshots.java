package dev.gitopshq.activities.delivery;

import dev.gitopshq.activities.delivery.ProjectSnapshot.Binding;
import dev.gitopshq.activities.delivery.ProjectSnapshot.ClusterTarget;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Environment;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Fence;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Target;
import dev.gitopshq.activities.delivery.ProjectSnapshot.TenantValues;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Variable;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Workload;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Reads a project's {@link ProjectSnapshot} from PostgreSQL. Call it inside a transaction (the
 * change pipeline holds the project's row lock) so every table is read at one point in time.
 */
public class ProjectSnapshots {
  private final ProjectMapper projects;
  private final ProjectEnvironmentMapper environments;
  private final ProjectTenantMapper tenants;
  private final WorkloadMapper workloads;
  private final VariableMapper variables;
  private final BindingMapper bindings;
  private final SourceMapper sources;
  private final ProjectFenceMapper fences;

  public ProjectSnapshots(
      ProjectMapper projects,
      ProjectEnvironmentMapper environments,
      ProjectTenantMapper tenants,
      WorkloadMapper workloads,
      VariableMapper variables,
      BindingMapper bindings,
      SourceMapper sources,
      ProjectFenceMapper fences) {
    this.projects = projects;
    this.environments = environments;
    this.tenants = tenants;
    this.workloads = workloads;
    this.variables = variables;
    this.bindings = bindings;
    this.sources = sources;
    this.fences = fences;
  }

  /** The project's configuration now, or empty when the organization has no such project. */
  public Optional<ProjectSnapshot> find(UUID orgId, UUID projectId) {
    return projects.findById(orgId, projectId).map(p -> load(p));
  }

  /**
   * The project's configuration now.
   *
   * @throws IllegalArgumentException when the organization has no such project
   */
  public ProjectSnapshot load(UUID orgId, UUID projectId) {
    return find(orgId, projectId)
        .orElseThrow(
            () -> new IllegalArgumentException("no project " + projectId + " in org " + orgId));
  }

  private ProjectSnapshot load(ProjectRow p) {
    UUID orgId = p.orgId();
    UUID projectId = p.id();

    Map<UUID, List<ClusterTarget>> clustersByEnv = new HashMap<>();
    for (ProjectEnvironmentClusterRow c : environments.clusters(orgId, projectId)) {
      clustersByEnv
          .computeIfAbsent(c.environmentId(), k -> new ArrayList<>())
          .add(
              new ClusterTarget(
                  c.cluster(),
                  c.clusterId(),
                  c.overrideMap(),
                  c.deliveryMode(),
                  c.byName(),
                  c.bySelector()));
    }
    List<Environment> envs = new ArrayList<>();
    for (ProjectEnvironmentRow e : environments.list(orgId, projectId)) {
      envs.add(
          new Environment(
              e.environment(),
              e.position(),
              e.namespacePattern(),
              clustersByEnv.getOrDefault(e.environmentId(), List.of()),
              e.createNamespace(),
              e.selector(),
              e.selectorDeliveryMode()));
    }

    List<String> tenantNames =
        tenants.list(orgId, projectId).stream().map(ProjectTenantRow::tenant).sorted().toList();

    List<Workload> workloadList =
        workloads.list(orgId, projectId).stream()
            .map(
                w ->
                    new Workload(
                        w.name(),
                        w.chart(),
                        w.chartVersion(),
                        w.chartDigest(),
                        w.valueMap(),
                        w.imageTagPath(),
                        w.kindScopeMap()))
            .toList();

    List<TenantValues> values =
        workloads.values(orgId, projectId).stream()
            .map(v -> new TenantValues(v.workload(), v.tenant(), v.environment(), v.valueMap()))
            .toList();

    List<Variable> vars = new ArrayList<>();
    for (VariableRow v : variables.listOrg(orgId)) {
      vars.add(variable(v));
    }
    for (VariableRow v : variables.listProject(orgId, projectId)) {
      vars.add(variable(v));
    }

    Map<UUID, List<Target>> targetsByBinding = new HashMap<>();
    for (BindingTargetRow t : bindings.targets(orgId, projectId)) {
      targetsByBinding
          .computeIfAbsent(t.bindingId(), k -> new ArrayList<>())
          .add(new Target(t.tenant(), t.environment()));
    }
    List<Binding> bindingList = new ArrayList<>();
    for (BindingRow b : bindings.list(orgId, projectId)) {
      SourceKind kind = SourceKind.ofBindingKind(b.kind());
      SourceRow source =
          sources
              .findById(kind, orgId, b.sourceId())
              .orElseThrow(
                  () -> new IllegalStateException("binding " + b.name() + " has no source"));
      bindingList.add(
          new Binding(
              b.name(),
              b.kind(),
              source.name(),
              source.revision(),
              source.fileMap(),
              b.overlayList(),
              targetsByBinding.getOrDefault(b.id(), List.of()),
              b.kindScopeMap()));
    }

    return new ProjectSnapshot(
        orgId,
        projectId,
        p.name(),
        p.configRevision(),
        envs,
        tenantNames,
        workloadList,
        values,
        vars,
        bindingList,
        fences.find(orgId, projectId).map(ProjectFenceRow::fence).orElse(Fence.DEFAULT));
  }

  private static Variable variable(VariableRow v) {
    return new Variable(v.scope(), v.environment(), v.tenant(), v.service(), v.key(), v.value());
  }
}
