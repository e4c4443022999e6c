package dev.gitopshq.activities.release;

import dev.gitopshq.activities.git.ProjectRepos;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The configuration changes on main: the commits that changed something under {@code config/}. Each
 * configuration revision of a project is one such commit (generation commits touch only {@code
 * rendered/}), so the changes a release collects are the newest {@code revision - previous
 * release's revision} of them at the release's revision.
 */
public final class ConfigHistory {
  /** Where the project configuration lives on main. */
  public static final String CONFIG = "config";

  private final ProjectRepos repos;

  public ConfigHistory(ProjectRepos repos) {
    this.repos = repos;
  }

  /** A configuration commit: its subject line, who made it and when. */
  public record Change(String commit, String description, String author, Instant at) {}

  /**
   * Configuration commits reachable from {@code from}, newest first: skips the first {@code skip}
   * and returns at most {@code count}.
   */
  public List<Change> changes(UUID orgId, UUID projectId, ObjectId from, long skip, long count) {
    if (from == null || count <= 0) {
      return List.of();
    }
    return repos.commitsChanging(orgId, projectId, from, CONFIG, skip, count).stream()
        .map(c -> new Change(c.id(), c.subject(), c.author(), c.at()))
        .toList();
  }

  /** The configuration changes reachable from main's head; see {@link #changes}. */
  public List<Change> changesAtHead(UUID orgId, UUID projectId, long skip, long count) {
    return repos
        .head(orgId, projectId, ProjectRepos.MAIN)
        .map(h -> changes(orgId, projectId, h, skip, count))
        .orElse(List.of());
  }
}
