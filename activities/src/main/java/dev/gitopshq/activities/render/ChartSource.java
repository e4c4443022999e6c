package dev.gitopshq.activities.render;

/**
 * Where the {@link Renderer} gets chart archives: the generator reads them from PostgreSQL by the
 * digest recorded in the unit.
 */
@FunctionalInterface
public interface ChartSource {
  /**
   * The archive (.tgz) whose SHA-256 is {@code chartDigest}, or null when none is stored. The
   * renderer checks the digest of what it gets.
   */
  byte[] archive(String chartDigest);
}
