package dev.gitopshq.hub.delivery.chart;

import dev.gitopshq.activities.delivery.ChartVersionRow;
import java.time.Instant;
import java.util.List;

/** What the chart API returns. */
public final class ChartViews {
  private ChartViews() {}

  public record ChartVersionView(
      String name,
      String version,
      String appVersion,
      String description,
      String digest,
      long size,
      String uploadedBy,
      Instant createdAt) {
    public static ChartVersionView of(ChartVersionRow r) {
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
  public record ChartView(
      String name, String description, String latestVersion, List<ChartVersionView> versions) {
    public static ChartView of(ChartService.ChartWithVersions c) {
      List<ChartVersionView> versions = c.versions().stream().map(ChartVersionView::of).toList();
      return new ChartView(
          c.chart().name(),
          c.chart().description(),
          versions.isEmpty() ? null : versions.get(0).version(),
          versions);
    }
  }
}
