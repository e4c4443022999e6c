package dev.gitopshq.activities.release;

import dev.gitopshq.activities.git.ProjectRepos;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.filter.AndTreeFilter;
import org.eclipse.jgit.treewalk.filter.PathFilter;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

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
    List<Change> out = new ArrayList<>();
    if (from == null || count <= 0) {
      return out;
    }
    try (RevWalk walk = new RevWalk(repos.open(orgId, projectId))) {
      walk.setTreeFilter(AndTreeFilter.create(PathFilter.create(CONFIG), TreeFilter.ANY_DIFF));
      walk.markStart(walk.parseCommit(from));
      long seen = 0;
      for (RevCommit c : walk) {
        if (seen++ < skip) {
          continue;
        }
        out.add(
            new Change(
                c.name(),
                c.getShortMessage(),
                c.getAuthorIdent().getName(),
                c.getAuthorIdent().getWhenAsInstant()));
        if (out.size() >= count) {
          break;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** The configuration changes reachable from main's head; see {@link #changes}. */
  public List<Change> changesAtHead(UUID orgId, UUID projectId, long skip, long count) {
    return repos
        .head(orgId, projectId, ProjectRepos.MAIN)
        .map(h -> changes(orgId, projectId, h, skip, count))
        .orElse(List.of());
  }
}
