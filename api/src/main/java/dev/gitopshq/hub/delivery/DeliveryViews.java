package dev.gitopshq.hub.delivery;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.gitopshq.activities.delivery.ChartVersionRow;
import dev.gitopshq.activities.delivery.EnvironmentRow;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Overlay;
import dev.gitopshq.activities.delivery.ProjectTenantRow;
import dev.gitopshq.activities.delivery.SourceRow;
import dev.gitopshq.activities.delivery.TenantRow;
import dev.gitopshq.activities.delivery.TenantValuesRow;
import dev.gitopshq.activities.delivery.VariableRow;
import dev.gitopshq.activities.delivery.WorkloadRow;
import dev.gitopshq.hub.delivery.ProjectChanges.Applied;
import dev.gitopshq.hub.delivery.ProjectChanges.OrgApplied;
import dev.gitopshq.hub.delivery.ProjectChanges.ProjectOutcome;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** What the object model's API returns. */
final class DeliveryViews {
  private DeliveryViews() {}

  record Items<T>(List<T> items) {}

  /**
   * A project configuration change's answer: the resource (its fields inline) and the outcome.
   *
   * @param changed false when config/ came out as it was (no commit, no new revision)
   * @param revision the project's configuration revision afterwards
   * @param commit main's head afterwards
   */
  record Changed<T>(boolean changed, long revision, String commit, @JsonUnwrapped T item) {
    static <T, R> Changed<R> of(Applied<T> a, R item) {
      return new Changed<>(
          a.outcome().changed(), a.outcome().revision(), a.outcome().commit(), item);
    }
  }

  /**
   * An organization-level change's answer: the resource and every project whose configuration it
   * changed (each with its new revision and commit).
   */
  record OrgChanged<T>(@JsonUnwrapped T item, List<ProjectOutcome> projects) {
    static <T, R> OrgChanged<R> of(OrgApplied<T> a, R item) {
      return new OrgChanged<>(item, a.projects());
    }
  }

  record EnvironmentView(String name, int position, String description, Instant createdAt) {
    static EnvironmentView of(EnvironmentRow r) {
      return new EnvironmentView(r.name(), r.position(), r.description(), r.createdAt());
    }
  }

  record TenantView(
      String name, String displayName, Map<String, String> labels, Instant createdAt) {
    static TenantView of(TenantRow r) {
      return new TenantView(r.name(), r.displayName(), r.labels(), r.createdAt());
    }
  }

  record ChartVersionView(
      String name,
      String version,
      String appVersion,
      String description,
      String digest,
      long size,
      String uploadedBy,
      Instant createdAt) {
    static ChartVersionView of(ChartVersionRow r) {
      return new ChartVersionView(
          r.chart(),
          r.version(),
          r.appVersion(),
          r.description(),
          r.digest(),
          r.sizeBytes(),
          r.uploadedBy(),
          r.createdAt());
    }
  }

  /** A chart; {@code versions} newest first. */
  record ChartView(
      String name, String description, String latestVersion, List<ChartVersionView> versions) {
    static ChartView of(ChartService.ChartWithVersions c) {
      List<ChartVersionView> versions = c.versions().stream().map(ChartVersionView::of).toList();
      return new ChartView(
          c.chart().name(),
          c.chart().description(),
          versions.isEmpty() ? null : versions.get(0).version(),
          versions);
    }
  }

  /** A bundle or base; {@code files} only when one is read by name. */
  record SourceView(
      String name,
      String description,
      int revision,
      int fileCount,
      Map<String, String> files,
      String updatedBy,
      Instant createdAt,
      Instant updatedAt) {
    static SourceView of(SourceRow r, boolean withFiles) {
      Map<String, String> files = r.fileMap();
      return new SourceView(
          r.name(),
          r.description(),
          r.revision(),
          files.size(),
          withFiles ? files : null,
          r.updatedBy(),
          r.createdAt(),
          r.updatedAt());
    }
  }

  record VariableView(
      String scope,
      String environment,
      String tenant,
      String service,
      String key,
      String value,
      String updatedBy,
      Instant updatedAt) {
    static VariableView of(VariableRow r) {
      return new VariableView(
          r.scope(),
          r.environment(),
          r.tenant(),
          r.service(),
          r.key(),
          r.value(),
          r.updatedBy(),
          r.updatedAt());
    }
  }

  record Repository(String cloneUrl, String mainBranch) {}

  record ProjectView(
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

  record ClusterBinding(String cluster, Map<String, Object> overrides) {}

  record ProjectEnvironmentView(
      String name, int position, String namespacePattern, List<ClusterBinding> clusters) {
    static ProjectEnvironmentView of(ProjectConfig.Environment e) {
      return new ProjectEnvironmentView(
          e.row().environment(),
          e.row().position(),
          e.row().namespacePattern(),
          e.clusters().stream()
              .map(c -> new ClusterBinding(c.cluster(), c.overrideMap()))
              .toList());
    }
  }

  record ProjectTenantView(String name) {
    static ProjectTenantView of(ProjectTenantRow r) {
      return new ProjectTenantView(r.tenant());
    }
  }

  record WorkloadView(
      String name,
      String chart,
      String version,
      String digest,
      Map<String, Object> values,
      String imageTagPath,
      Instant createdAt,
      Instant updatedAt) {
    static WorkloadView of(WorkloadRow r) {
      return new WorkloadView(
          r.name(),
          r.chart(),
          r.chartVersion(),
          r.chartDigest(),
          r.valueMap(),
          r.imageTagPath(),
          r.createdAt(),
          r.updatedAt());
    }
  }

  record ValuesView(
      String workload,
      String tenant,
      String environment,
      Map<String, Object> values,
      String updatedBy,
      Instant updatedAt) {
    static ValuesView of(TenantValuesRow r) {
      return new ValuesView(
          r.workload(), r.tenant(), r.environment(), r.valueMap(), r.updatedBy(), r.updatedAt());
    }
  }

  record TargetView(String tenant, String environment) {}

  record BindingView(
      String name,
      String kind,
      String source,
      List<TargetView> targets,
      List<Overlay> overlays,
      Instant createdAt,
      Instant updatedAt) {
    static BindingView of(ProjectConfig.Binding b) {
      return new BindingView(
          b.row().name(),
          b.row().kind(),
          b.row().source(),
          b.targets().stream().map(t -> new TargetView(t.tenant(), t.environment())).toList(),
          b.row().overlayList(),
          b.row().createdAt(),
          b.row().updatedAt());
    }
  }

  /** Only the outcome: for deletions of project configuration. */
  record Outcome(boolean changed, long revision, String commit) {
    static Outcome of(Applied<?> a) {
      return new Outcome(a.outcome().changed(), a.outcome().revision(), a.outcome().commit());
    }
  }
}
