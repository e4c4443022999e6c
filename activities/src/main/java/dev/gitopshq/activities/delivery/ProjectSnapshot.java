package dev.gitopshq.activities.delivery;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.agent.v1.TenantFence;
import dev.gitopshq.agent.v1.TenantFences;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Everything the delivery generator needs to know about a project at one configuration revision,
 * read from PostgreSQL in one transaction: the project's environments (in the organization's order)
 * with their clusters, its tenants, workloads, tenant-environment values, every HQ variable that
 * applies to it (organization-scoped ones included) and its bindings with the files of their bases
 * and bundles. Serialized into {@code config/} of the project's repository and planned into units
 * by {@link dev.gitopshq.activities.render.DeliveryPlanner}.
 *
 * <p>All names are RFC 1123 labels (checked by the API), so they are safe path segments.
 */
public record ProjectSnapshot(
    UUID orgId,
    UUID projectId,
    String project,
    long revision,
    List<Environment> environments,
    List<String> tenants,
    List<Workload> workloads,
    List<TenantValues> values,
    List<Variable> variables,
    List<Binding> bindings,
    Fence fence) {

  public ProjectSnapshot {
    environments = List.copyOf(environments);
    tenants = List.copyOf(tenants);
    workloads = List.copyOf(workloads);
    values = List.copyOf(values);
    variables = List.copyOf(variables);
    bindings = List.copyOf(bindings);
    fence = fence == null ? Fence.DEFAULT : fence;
  }

  /** A snapshot under the default fence ({@link TenantFences#DEFAULT}). */
  public ProjectSnapshot(
      UUID orgId,
      UUID projectId,
      String project,
      long revision,
      List<Environment> environments,
      List<String> tenants,
      List<Workload> workloads,
      List<TenantValues> values,
      List<Variable> variables,
      List<Binding> bindings) {
    this(
        orgId,
        projectId,
        project,
        revision,
        environments,
        tenants,
        workloads,
        values,
        variables,
        bindings,
        Fence.DEFAULT);
  }

  /**
   * The fence the organization's admins put around the project ({@link TenantFence}, evaluated by
   * {@link TenantFences}): where its objects may go and which kinds it may deliver. A plain record
   * so that it travels in a unit's JSON and fingerprint.
   */
  public record Fence(
      List<String> allowedNamespaces, List<String> clusterScopedKinds, List<String> deniedKinds) {
    /** The fence of a project whose admins set none. */
    public static final Fence DEFAULT = of(TenantFences.DEFAULT);

    public Fence {
      allowedNamespaces = allowedNamespaces == null ? List.of() : List.copyOf(allowedNamespaces);
      clusterScopedKinds = clusterScopedKinds == null ? List.of() : List.copyOf(clusterScopedKinds);
      deniedKinds = deniedKinds == null ? List.of() : List.copyOf(deniedKinds);
    }

    public static Fence of(TenantFence fence) {
      return new Fence(
          fence.getAllowedNamespacesList(),
          fence.getClusterScopedKindsList(),
          fence.getDeniedKindsList());
    }

    public TenantFence toProto() {
      return TenantFence.newBuilder()
          .addAllAllowedNamespaces(allowedNamespaces)
          .addAllClusterScopedKinds(clusterScopedKinds)
          .addAllDeniedKinds(deniedKinds)
          .build();
    }

    @JsonIgnore
    public boolean isDefault() {
      return equals(DEFAULT);
    }
  }

  /** The scopes a kind declaration may give: {@code Namespaced} or {@code Cluster}. */
  public static final List<String> KIND_SCOPES = List.of("Namespaced", "Cluster");

  /**
   * An environment of the project.
   *
   * @param position the organization's order (lower deploys first)
   * @param namespacePattern e.g. {@code {{ .tenant }}-{{ .environment }}}
   * @param clusters where it delivers, by cluster name: those it names and those its selector
   *     matches
   * @param createNamespace whether the delivery writes the Namespace objects themselves
   * @param clusterSelector the label selector of the clusters it binds besides the named ones; null
   *     for none
   * @param selectorDeliveryMode the delivery mode of the clusters only the selector binds
   */
  public record Environment(
      String name,
      int position,
      String namespacePattern,
      List<ClusterTarget> clusters,
      boolean createNamespace,
      LabelSelector clusterSelector,
      String selectorDeliveryMode) {
    public Environment {
      clusters = List.copyOf(clusters);
      selectorDeliveryMode =
          selectorDeliveryMode == null ? ClusterTarget.MODES.get(0) : selectorDeliveryMode;
    }

    public Environment(
        String name,
        int position,
        String namespacePattern,
        List<ClusterTarget> clusters,
        boolean createNamespace) {
      this(name, position, namespacePattern, clusters, createNamespace, null, null);
    }

    public Environment(
        String name, int position, String namespacePattern, List<ClusterTarget> clusters) {
      this(name, position, namespacePattern, clusters, false);
    }
  }

  /**
   * A cluster an environment delivers to, with its cluster-specific value overrides and its
   * delivery mode ({@code argocd}, {@code flux} or {@code direct}), and why it is there: the
   * environment names it ({@code byName}), its selector matches it ({@code bySelector}), or both.
   */
  public record ClusterTarget(
      String name,
      UUID clusterId,
      Map<String, Object> overrides,
      String deliveryMode,
      boolean byName,
      boolean bySelector) {
    /** The delivery modes, the default first. */
    public static final List<String> MODES = List.of("argocd", "flux", "direct");

    public ClusterTarget(
        String name, UUID clusterId, Map<String, Object> overrides, String deliveryMode) {
      this(name, clusterId, overrides, deliveryMode, true, false);
    }

    public ClusterTarget(String name, UUID clusterId, Map<String, Object> overrides) {
      this(name, clusterId, overrides, MODES.get(0));
    }
  }

  /**
   * A Helm workload (service).
   *
   * @param chartDigest SHA-256 of the chart version's archive (the archive is read by digest)
   * @param values the workload's default values
   * @param kindScopes the scope ({@code Namespaced} or {@code Cluster}) of kinds the hub does not
   *     know, by {@code group/Kind}
   */
  public record Workload(
      String name,
      String chart,
      String chartVersion,
      String chartDigest,
      Map<String, Object> values,
      String imageTagPath,
      Map<String, String> kindScopes) {
    public Workload {
      kindScopes = kindScopes == null ? Map.of() : Map.copyOf(kindScopes);
    }

    public Workload(
        String name,
        String chart,
        String chartVersion,
        String chartDigest,
        Map<String, Object> values,
        String imageTagPath) {
      this(name, chart, chartVersion, chartDigest, values, imageTagPath, Map.of());
    }
  }

  /** Values of one workload for one tenant in one environment. */
  public record TenantValues(
      String workload, String tenant, String environment, Map<String, Object> values) {}

  /**
   * An HQ variable.
   *
   * @param scope org, project, environment, tenant or service
   * @param environment set for environment scope
   * @param tenant set for tenant scope
   * @param service the workload or binding name, set for service scope
   */
  public record Variable(
      String scope, String environment, String tenant, String service, String key, String value) {}

  /**
   * A Kustomize binding (kind {@code kustomize}, source a base) or a manifest binding (kind {@code
   * manifests}, source a bundle).
   *
   * @param sourceRevision the base's or bundle's revision when the snapshot was taken
   * @param files the base's or bundle's files, relative path to text
   * @param kindScopes the scope of kinds the hub does not know, by {@code group/Kind}
   */
  public record Binding(
      String name,
      String kind,
      String source,
      int sourceRevision,
      Map<String, String> files,
      List<Overlay> overlays,
      List<Target> targets,
      Map<String, String> kindScopes) {
    public Binding {
      overlays = List.copyOf(overlays);
      targets = List.copyOf(targets);
      kindScopes = kindScopes == null ? Map.of() : Map.copyOf(kindScopes);
    }

    public Binding(
        String name,
        String kind,
        String source,
        int sourceRevision,
        Map<String, String> files,
        List<Overlay> overlays,
        List<Target> targets) {
      this(name, kind, source, sourceRevision, files, overlays, targets, Map.of());
    }
  }

  /** A tenant-environment pair a binding applies to. */
  public record Target(String tenant, String environment) {}

  /**
   * A JSON merge patch (RFC 7386) for the resources of a binding that match {@code kind} and {@code
   * name} ({@code name} empty or null: every resource of that kind).
   */
  public record Overlay(String kind, String name, Map<String, Object> patch) {}
}
