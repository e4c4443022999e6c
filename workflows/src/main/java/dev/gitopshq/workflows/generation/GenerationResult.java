package dev.gitopshq.workflows.generation;

/**
 * How a generation ended.
 *
 * @param status committed, unchanged, superseded or failed
 * @param commit the new commit on main when committed, else null
 * @param changedPaths how many files the commit added, changed or removed
 * @param units how many units were planned
 * @param detail a sentence for people: what changed, or why it failed
 * @param reused how many of the units took an earlier generation's tree instead of being rendered
 *     (their input fingerprint was unchanged); {@code units - reused} were rendered
 */
public record GenerationResult(
    String generationId,
    String status,
    String commit,
    int units,
    int changedPaths,
    String detail,
    int reused) {
  public static final String COMMITTED = "committed";
  public static final String UNCHANGED = "unchanged";
  public static final String SUPERSEDED = "superseded";
  public static final String FAILED = "failed";
}
