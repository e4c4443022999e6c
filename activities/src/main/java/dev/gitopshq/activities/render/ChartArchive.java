package dev.gitopshq.activities.render;

/** Checks uploaded Helm chart archives (.tgz). SKELETON: the render helper replaces this body. */
public final class ChartArchive {
  private ChartArchive() {}

  /**
   * What an accepted archive holds.
   *
   * @param digest SHA-256 of the archive bytes, lowercase hex
   */
  public record Info(String name, String version, String appVersion, String description, String digest) {}

  /**
   * Checks an archive and reads its Chart.yaml.
   *
   * @throws InvalidChartException with the reason it is refused
   */
  public static Info inspect(byte[] archive) {
    throw new UnsupportedOperationException("not built yet");
  }
}
