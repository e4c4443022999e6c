package dev.gitopshq.hub.delivery.resources;

import dev.gitopshq.activities.delivery.EnvironmentRow;
import dev.gitopshq.activities.delivery.SourceRow;
import dev.gitopshq.activities.delivery.TenantRow;
import java.time.Instant;
import java.util.Map;

/** What the organization resources' API returns. */
public final class ResourceViews {
  private ResourceViews() {}

  /**
   * @param verifyTimeoutSeconds how long a deployment waits for the environment's Flux and Argo CD
   *     clusters to run its commit before it ends degraded; null when its deployments are not
   *     verified
   */
  public record EnvironmentView(
      String name,
      int position,
      String description,
      Instant createdAt,
      Integer verifyTimeoutSeconds) {
    public static EnvironmentView of(EnvironmentRow r) {
      return new EnvironmentView(
          r.name(), r.position(), r.description(), r.createdAt(), r.verifyTimeoutSeconds());
    }
  }

  public record TenantView(
      String name, String displayName, Map<String, String> labels, Instant createdAt) {
    public static TenantView of(TenantRow r) {
      return new TenantView(r.name(), r.displayName(), r.labels(), r.createdAt());
    }
  }

  /** A bundle or base; {@code files} only when one is read by name. */
  public record SourceView(
      String name,
      String description,
      int revision,
      int fileCount,
      Map<String, String> files,
      String updatedBy,
      Instant createdAt,
      Instant updatedAt) {
    public static SourceView of(SourceRow r, boolean withFiles) {
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
}
