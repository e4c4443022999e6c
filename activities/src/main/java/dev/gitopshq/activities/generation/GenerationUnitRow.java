package dev.gitopshq.activities.generation;

/**
 * A planned unit of a generation.
 *
 * @param input the {@link dev.gitopshq.activities.render.Unit} as JSON
 * @param treeId the Git tree of its rendered files, once rendered
 */
public record GenerationUnitRow(int idx, int batch, String path, String input, String treeId) {}
