package dev.gitopshq.activities.git;

import dev.gitopshq.activities.git.ProjectRepos.CommitInfo;
import dev.gitopshq.activities.git.ProjectRepos.CommitLine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.jgit.errors.IncorrectObjectTypeException;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.filter.AndTreeFilter;
import org.eclipse.jgit.treewalk.filter.PathFilter;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * The branches and commits of the hosted repositories as they are read, behind {@link
 * ProjectRepos}: the commit a branch points at, a branch's newest commits, one commit by id, and
 * the commits that changed a path. Nothing here writes; a commit id that is not one, or not in the
 * repository, is an empty answer rather than a failure.
 */
final class RepoHistory {
  private final RepoStore store;

  RepoHistory(RepoStore store) {
    this.store = store;
  }

  /** {@link ProjectRepos#head}. */
  Optional<ObjectId> head(UUID orgId, UUID projectId, String branch) {
    try {
      Ref ref = store.open(orgId, projectId).exactRef(Constants.R_HEADS + branch);
      return Optional.ofNullable(ref).map(Ref::getObjectId);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@link ProjectRepos#commitsChanging}. */
  List<CommitLine> commitsChanging(
      UUID orgId, UUID projectId, ObjectId from, String path, long skip, long count) {
    List<CommitLine> out = new ArrayList<>();
    try (RevWalk walk = new RevWalk(store.open(orgId, projectId))) {
      walk.setTreeFilter(AndTreeFilter.create(PathFilter.create(path), TreeFilter.ANY_DIFF));
      walk.markStart(walk.parseCommit(from));
      long seen = 0;
      for (RevCommit c : walk) {
        if (seen++ < skip) {
          continue;
        }
        out.add(
            new CommitLine(
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

  /** {@link ProjectRepos#log}. */
  List<CommitInfo> log(UUID orgId, UUID projectId, String branch, int limit) {
    Optional<ObjectId> head = head(orgId, projectId, branch);
    if (head.isEmpty()) {
      return List.of();
    }
    List<CommitInfo> out = new ArrayList<>();
    try (RevWalk walk = new RevWalk(store.open(orgId, projectId))) {
      walk.markStart(walk.parseCommit(head.get()));
      for (RevCommit c : walk) {
        if (out.size() >= limit) {
          break;
        }
        out.add(info(c));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** {@link ProjectRepos#commitInfo}. */
  Optional<CommitInfo> commitInfo(UUID orgId, UUID projectId, String id) {
    try (RevWalk walk = new RevWalk(store.open(orgId, projectId))) {
      ObjectId oid = ObjectId.fromString(id);
      return Optional.of(info(walk.parseCommit(oid)));
    } catch (IllegalArgumentException | MissingObjectException | IncorrectObjectTypeException e) {
      // Not an id, not in this repository, or not a commit (a tree or blob id).
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static CommitInfo info(RevCommit c) {
    PersonIdent a = c.getAuthorIdent();
    List<String> parents = new ArrayList<>();
    for (RevCommit p : c.getParents()) {
      parents.add(p.name());
    }
    return new CommitInfo(
        c.name(),
        a.getName(),
        a.getEmailAddress(),
        a.getWhenAsInstant(),
        c.getFullMessage(),
        parents);
  }
}
