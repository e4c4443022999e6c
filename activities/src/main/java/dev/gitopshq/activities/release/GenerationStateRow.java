package dev.gitopshq.activities.release;

/**
 * What a release needs to know of a delivery generation.
 *
 * @param status planning, rendering, committed, unchanged, superseded or failed
 * @param commit the commit on main holding the generated delivery (committed and unchanged)
 * @param configCommit the configuration commit the generation rendered
 */
public record GenerationStateRow(
    long revision, String status, String commit, String configCommit, String detail) {
  public boolean succeeded() {
    return ("committed".equals(status) || "unchanged".equals(status)) && commit != null;
  }

  public boolean running() {
    return "planning".equals(status) || "rendering".equals(status);
  }
}
