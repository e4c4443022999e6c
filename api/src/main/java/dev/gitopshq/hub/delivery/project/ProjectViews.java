package dev.gitopshq.hub.delivery.project;

import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.delivery.ProjectEnvironmentClusterRow;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Overlay;
import dev.gitopshq.activities.delivery.ProjectTenantRow;
import dev.gitopshq.activities.delivery.TenantValuesRow;
import dev.gitopshq.activities.delivery.WorkloadRow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** What the project API returns. */
public final class ProjectViews {
  private ProjectViews() {}

  public record Repository(String cloneUrl, String mainBranch) {}

  public record ProjectView(
      UUID id,
      String name,
      String description,
      long configRevision,
      long generatedRevision,
      Repository repository,
      boolean webhookSecretSet,
      String createdBy,
      Instant createdAt,
      Instant updatedAt) {}

  /**
   * A cluster of a project environment, with its delivery mode (argocd, flux or direct) and why it
   * is bound: {@code name} (the environment names it), {@code selector} (its selector matches it),
   * or both.
   */
  public record ClusterBinding(
      String cluster, Map<String, Object> overrides, String deliveryMode, List<String> boundBy) {
    static ClusterBinding of(ProjectEnvironmentClusterRow c) {
      List<String> why = new ArrayList<>();
      if (c.byName()) {
        why.add("name");
      }
      if (c.bySelector()) {
        why.add("selector");
      }
      return new ClusterBinding(c.cluster(), c.overrideMap(), c.deliveryMode(), why);
    }
  }

  /**
   * A project environment.
   *
   * @param clusterSelector the label selector that binds clusters besides the named ones; null when
   *     it binds by name only
   * @param selectorDeliveryMode the delivery mode of the clusters only the selector binds
   */
  public record ProjectEnvironmentView(
      String name,
      int position,
      String namespacePattern,
      List<ClusterBinding> clusters,
      boolean createNamespace,
      LabelSelector clusterSelector,
      String selectorDeliveryMode) {
    public static ProjectEnvironmentView of(ProjectEnvironments.Environment e) {
      return new ProjectEnvironmentView(
          e.row().environment(),
          e.row().position(),
          e.row().namespacePattern(),
          e.clusters().stream().map(ClusterBinding::of).toList(),
          e.row().createNamespace(),
          e.row().selector(),
          e.row().selectorDeliveryMode());
    }
  }

  public record ProjectTenantView(String name) {
    public static ProjectTenantView of(ProjectTenantRow r) {
      return new ProjectTenantView(r.tenant());
    }
  }

  public record WorkloadView(
      String name,
      String chart,
      String version,
      String digest,
      Map<String, Object> values,
      String imageTagPath,
      Map<String, String> kindScopes,
      Instant createdAt,
      Instant updatedAt) {
    public static WorkloadView of(WorkloadRow r) {
      return new WorkloadView(
          r.name(),
          r.chart(),
          r.chartVersion(),
          r.chartDigest(),
          r.valueMap(),
          r.imageTagPath(),
          r.kindScopeMap(),
          r.createdAt(),
          r.updatedAt());
    }
  }

  public record ValuesView(
      String workload,
      String tenant,
      String environment,
      Map<String, Object> values,
      String updatedBy,
      Instant updatedAt) {
    public static ValuesView of(TenantValuesRow r) {
      return new ValuesView(
          r.workload(), r.tenant(), r.environment(), r.valueMap(), r.updatedBy(), r.updatedAt());
    }
  }

  public record TargetView(String tenant, String environment) {}

  public record BindingView(
      String name,
      String kind,
      String source,
      List<TargetView> targets,
      List<Overlay> overlays,
      Map<String, String> kindScopes,
      Instant createdAt,
      Instant updatedAt) {
    public static BindingView of(ProjectBindings.Binding b) {
      return new BindingView(
          b.row().name(),
          b.row().kind(),
          b.row().source(),
          b.targets().stream().map(t -> new TargetView(t.tenant(), t.environment())).toList(),
          b.row().overlayList(),
          b.row().kindScopeMap(),
          b.row().createdAt(),
          b.row().updatedAt());
    }
  }
}
