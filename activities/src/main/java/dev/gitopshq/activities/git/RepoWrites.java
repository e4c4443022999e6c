package dev.gitopshq.activities.git;

import dev.gitopshq.activities.git.TreeEntries.Entry;
import dev.gitopshq.activities.metrics.Meters;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;

/**
 * Every write of the hosted repositories, behind {@link ProjectRepos}: commits built from a
 * branch's tree plus {@link TreeEdit}s and moved onto the branch by compare-and-set (rebuilt on the
 * new tip, with a growing, jittered pause, when another writer moved it meanwhile), the undo of a
 * commit whose database half failed, and trees written in bulk ahead of the commit that will name
 * them. It owns the branch locks that make writers in this process take turns; writers in other
 * processes (replicas sharing the store) are kept apart by the compare-and-set alone.
 */
final class RepoWrites {
  /** How many times a commit is rebuilt when another writer moved the branch meanwhile. */
  private static final int ATTEMPTS = 50;

  /** The longest pause between two attempts, in milliseconds. */
  private static final int MAX_BACKOFF_MILLIS = 200;

  private final RepoStore store;

  /**
   * One lock per branch of a repository: writers in this process take turns instead of racing for
   * the ref, which they would lose again and again while the winner finishes. Writers in other
   * processes (replicas) are still handled by the compare-and-set update.
   */
  private final ConcurrentMap<String, ReentrantLock> branchLocks = new ConcurrentHashMap<>();

  RepoWrites(RepoStore store) {
    this.store = store;
  }

  /**
   * One commit to make: {@code edits} on the tip of {@code branch}, by {@code author}, only while
   * the branch is at {@code expectedHead} when that is not null. See {@link ProjectRepos#commit}.
   */
  record Request(
      String branch, ObjectId expectedHead, List<TreeEdit> edits, Ident author, String message) {}

  /** {@link ProjectRepos#commit}. */
  CommitResult commit(UUID orgId, UUID projectId, Request request) {
    return Meters.gitWrite("commit", () -> commitNow(orgId, projectId, request));
  }

  private CommitResult commitNow(UUID orgId, UUID projectId, Request request) {
    Objects.requireNonNull(request.author(), "author");
    Objects.requireNonNull(request.message(), "message");
    for (TreeEdit e : request.edits()) {
      if (!(e instanceof TreeEdit.PutTree && e.path().isEmpty())) {
        RepoPaths.requireSafe(e.path());
      }
    }
    String refName = refName(request.branch());
    Repository repo = store.open(orgId, projectId);
    ReentrantLock lock = branchLock(orgId, projectId, refName);
    lock.lock();
    try {
      for (int attempt = 1; ; attempt++) {
        CommitResult done = tryCommit(repo, refName, request);
        if (done != null) {
          return done;
        }
        if (attempt >= ATTEMPTS) {
          throw new ConcurrentChangeException(
              "branch "
                  + request.branch()
                  + " kept moving: gave up after "
                  + ATTEMPTS
                  + " attempts");
        }
        backOff(attempt);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * One attempt of {@link #commit}: the result, or null when the compare-and-set lost to another
   * writer (the caller tries again on the new tip; an expected head is checked again then).
   */
  private static CommitResult tryCommit(Repository repo, String refName, Request request) {
    ObjectId expectedHead = request.expectedHead();
    Ident author = request.author();
    String message = request.message();
    try (ObjectInserter inserter = repo.newObjectInserter();
        ObjectReader reader = inserter.newReader();
        RevWalk walk = new RevWalk(reader)) {
      Ref ref = repo.exactRef(refName);
      ObjectId head = ref == null ? null : ref.getObjectId();
      if (expectedHead != null && !expectedHead.equals(head == null ? ObjectId.zeroId() : head)) {
        throw new ConcurrentChangeException(
            "branch "
                + request.branch()
                + " moved: expected "
                + expectedHead.name()
                + ", found "
                + (head == null ? "no branch" : head.name()));
      }
      SortedMap<String, Entry> before =
          head == null
              ? new TreeMap<>()
              : TreeEntries.entries(reader, walk.parseCommit(head).getTree(), "");
      SortedMap<String, Entry> after = new TreeMap<>(before);
      for (TreeEdit e : request.edits()) {
        TreeEntries.apply(reader, inserter, after, e);
      }
      int changed = TreeEntries.countChanges(before, after);
      if (changed == 0) {
        return new CommitResult(head, head, false, 0);
      }
      ObjectId tree = TreeEntries.writeTree(inserter, after);
      CommitBuilder c = new CommitBuilder();
      c.setTreeId(tree);
      if (head != null) {
        c.setParentId(head);
      }
      Instant now = Instant.now();
      c.setAuthor(new PersonIdent(author.name(), author.email(), now, ZoneOffset.UTC));
      c.setCommitter(new PersonIdent(Ident.HUB.name(), Ident.HUB.email(), now, ZoneOffset.UTC));
      c.setMessage(message);
      ObjectId commit = inserter.insert(c);
      inserter.flush();
      RefUpdate update = repo.updateRef(refName);
      update.setExpectedOldObjectId(head == null ? ObjectId.zeroId() : head);
      update.setNewObjectId(commit);
      update.setRefLogIdent(new PersonIdent(author.name(), author.email(), now, ZoneOffset.UTC));
      update.setRefLogMessage("commit: " + firstLine(message), false);
      RefUpdate.Result result = update.update(walk);
      return switch (result) {
        case NEW, FAST_FORWARD -> new CommitResult(commit, head, true, changed);
        // Another writer moved the branch, or holds its lock right now.
        case LOCK_FAILURE, REJECTED -> null;
        default -> throw new IllegalStateException("updating " + refName + " failed: " + result);
      };
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Waits a little before the next attempt, longer each time and with jitter, so writers in
   * different processes do not collide in step.
   */
  private static void backOff(int attempt) {
    int ceiling = Math.min(MAX_BACKOFF_MILLIS, 1 << Math.min(attempt, 8));
    try {
      Thread.sleep(1 + ThreadLocalRandom.current().nextInt(ceiling));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConcurrentChangeException("interrupted while waiting to commit");
    }
  }

  private static String refName(String branch) {
    String name = Constants.R_HEADS + branch;
    if (branch == null || branch.isEmpty() || !Repository.isValidRefName(name)) {
      throw new IllegalArgumentException("not a valid branch name: " + branch);
    }
    return name;
  }

  /** {@link ProjectRepos#undo}. */
  boolean undo(UUID orgId, UUID projectId, String branch, ObjectId current, ObjectId previous) {
    String refName = refName(branch);
    Repository repo = store.open(orgId, projectId);
    // Taking the branch's turn keeps a commit of this process from holding the ref's lock file
    // just then, which would make the undo fail although the branch is still at current.
    ReentrantLock lock = branchLock(orgId, projectId, refName);
    lock.lock();
    try {
      RefUpdate update = repo.updateRef(refName);
      update.setExpectedOldObjectId(current);
      update.setForceUpdate(true);
      update.setRefLogMessage("undo: the change was not stored", false);
      if (previous == null) {
        return update.delete() == RefUpdate.Result.FORCED;
      }
      update.setNewObjectId(previous);
      return update.forceUpdate() == RefUpdate.Result.FORCED;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      lock.unlock();
    }
  }

  private ReentrantLock branchLock(UUID orgId, UUID projectId, String refName) {
    return branchLocks.computeIfAbsent(
        orgId + "/" + projectId + " " + refName, k -> new ReentrantLock());
  }

  /** {@link ProjectRepos#writeTrees}. */
  List<ObjectId> writeTrees(
      UUID orgId, UUID projectId, List<? extends Map<String, byte[]>> fileSets) {
    return Meters.gitWrite("tree", () -> writeTreesNow(orgId, projectId, fileSets));
  }

  private List<ObjectId> writeTreesNow(
      UUID orgId, UUID projectId, List<? extends Map<String, byte[]>> fileSets) {
    fileSets.forEach(files -> files.keySet().forEach(RepoPaths::requireSafe));
    Repository repo = store.open(orgId, projectId);
    try (ObjectInserter inserter = store.bulkInserter(repo)) {
      List<ObjectId> trees = new ArrayList<>(fileSets.size());
      for (Map<String, byte[]> files : fileSets) {
        SortedMap<String, Entry> entries = new TreeMap<>();
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
          entries.put(
              f.getKey(),
              new Entry(FileMode.REGULAR_FILE, inserter.insert(Constants.OBJ_BLOB, f.getValue())));
        }
        trees.add(TreeEntries.writeTree(inserter, entries));
      }
      inserter.flush();
      return trees;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String firstLine(String message) {
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
