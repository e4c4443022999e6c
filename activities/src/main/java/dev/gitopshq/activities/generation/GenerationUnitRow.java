package dev.gitopshq.activities.generation;

/**
 * A planned unit of a generation.
 *
 * @param batch the render batch that renders it; -1 when it reused an earlier generation's tree
 * @param input the {@link dev.gitopshq.activities.render.Unit} as JSON
 * @param treeId the Git tree of its rendered files, once rendered (or reused)
 * @param fingerprint its {@link dev.gitopshq.activities.render.UnitFingerprint}
 */
public record GenerationUnitRow(
    int idx, int batch, String path, String input, String treeId, String fingerprint) {
  /** The batch of a unit that is not rendered: it took an earlier generation's tree. */
  public static final int REUSED = -1;
}
