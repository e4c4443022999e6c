package dev.gitopshq.activities.git;

import dev.gitopshq.activities.metrics.Meters;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.errors.IncorrectObjectTypeException;
import org.eclipse.jgit.errors.MissingObjectException;
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
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.AndTreeFilter;
import org.eclipse.jgit.treewalk.filter.PathFilter;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * The hosted repositories: one repository per project, kept by a {@link RepoStore} (bare
 * repositories under {@code <root>/<orgId>/<projectId>.git}, or packs and refs in PostgreSQL). Only
 * the hub writes them, and only here: every commit is built from the branch's current tree plus a
 * list of {@link TreeEdit}s and moved onto the branch with a compare-and-set ref update, so two
 * writers (threads or replicas sharing the store) never lose each other's commits. The hub writes
 * only regular files and trees: the repositories hold no symbolic links, submodules or executables.
 */
public final class ProjectRepos implements AutoCloseable {
  /** The branch configuration and generated manifests are committed to. */
  public static final String MAIN = "main";

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

  /** Bare repositories in a directory: {@code new ProjectRepos(new FileRepoStore(root))}. */
  public ProjectRepos(Path root) {
    this(new FileRepoStore(root));
  }

  /** The repositories {@code store} keeps; closing this closes the store. */
  public ProjectRepos(RepoStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  /** The branch the runtime adapters of an environment watch. */
  public static String deployBranch(String environment) {
    return "deploy/" + environment;
  }

  /** Where the repositories are kept. */
  public RepoStore store() {
    return store;
  }

  /** The directory of the repositories, with the file storage. */
  public Path root() {
    return fileStore().root();
  }

  /** Where a project's bare repository lives, with the file storage. */
  public Path dir(UUID orgId, UUID projectId) {
    return fileStore().dir(orgId, projectId);
  }

  private FileRepoStore fileStore() {
    if (store instanceof FileRepoStore file) {
      return file;
    }
    throw new IllegalStateException("the repositories are not kept in files but " + store.kind());
  }

  public boolean exists(UUID orgId, UUID projectId) {
    return store.exists(orgId, projectId);
  }

  /** Creates the project's repository with HEAD on {@value #MAIN}; nothing when it exists. */
  public Repository create(UUID orgId, UUID projectId) {
    store.create(orgId, projectId, MAIN);
    return open(orgId, projectId);
  }

  /**
   * The project's repository, kept open. JGit repositories are safe for concurrent use.
   *
   * @throws NoSuchRepositoryException when the project has none
   */
  public Repository open(UUID orgId, UUID projectId) {
    return store.open(orgId, projectId);
  }

  /** Closes and removes the project's repository. */
  public void delete(UUID orgId, UUID projectId) {
    store.delete(orgId, projectId);
  }

  /** The commit a branch points at. */
  public Optional<ObjectId> head(UUID orgId, UUID projectId, String branch) {
    try {
      Ref ref = open(orgId, projectId).exactRef(Constants.R_HEADS + branch);
      return Optional.ofNullable(ref).map(Ref::getObjectId);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Applies {@code edits} to the tip of {@code branch} and commits the result, unless the tree
   * comes out as it was. When another writer moves the branch meanwhile, the edits are applied
   * again to its new tip.
   *
   * @param expectedHead when not null, commit only if the branch is still at this commit (or, for
   *     {@link ObjectId#zeroId()}, does not exist yet); otherwise throw {@link
   *     ConcurrentChangeException}
   * @throws UnsafePathException when an edit's path, or a file of a tree put by a {@link
   *     TreeEdit.PutTree}, breaks the {@link RepoPaths} rule or is not a regular file
   */
  public CommitResult commit(
      UUID orgId,
      UUID projectId,
      String branch,
      ObjectId expectedHead,
      List<TreeEdit> edits,
      Ident author,
      String message) {
    return Meters.gitWrite(
        "commit", () -> commitNow(orgId, projectId, branch, expectedHead, edits, author, message));
  }

  private CommitResult commitNow(
      UUID orgId,
      UUID projectId,
      String branch,
      ObjectId expectedHead,
      List<TreeEdit> edits,
      Ident author,
      String message) {
    Objects.requireNonNull(author, "author");
    Objects.requireNonNull(message, "message");
    for (TreeEdit e : edits) {
      if (!(e instanceof TreeEdit.PutTree && e.path().isEmpty())) {
        RepoPaths.requireSafe(e.path());
      }
    }
    String refName = refName(branch);
    Repository repo = open(orgId, projectId);
    ReentrantLock lock = branchLock(orgId, projectId, refName);
    lock.lock();
    try {
      for (int attempt = 1; ; attempt++) {
        CommitResult done = tryCommit(repo, branch, refName, expectedHead, edits, author, message);
        if (done != null) {
          return done;
        }
        if (attempt >= ATTEMPTS) {
          throw new ConcurrentChangeException(
              "branch " + branch + " kept moving: gave up after " + ATTEMPTS + " attempts");
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
  private static CommitResult tryCommit(
      Repository repo,
      String branch,
      String refName,
      ObjectId expectedHead,
      List<TreeEdit> edits,
      Ident author,
      String message) {
    try (ObjectInserter inserter = repo.newObjectInserter();
        ObjectReader reader = inserter.newReader();
        RevWalk walk = new RevWalk(reader)) {
      Ref ref = repo.exactRef(refName);
      ObjectId head = ref == null ? null : ref.getObjectId();
      if (expectedHead != null && !expectedHead.equals(head == null ? ObjectId.zeroId() : head)) {
        throw new ConcurrentChangeException(
            "branch "
                + branch
                + " moved: expected "
                + expectedHead.name()
                + ", found "
                + (head == null ? "no branch" : head.name()));
      }
      SortedMap<String, Entry> before =
          head == null ? new TreeMap<>() : entries(reader, walk.parseCommit(head).getTree(), "");
      SortedMap<String, Entry> after = new TreeMap<>(before);
      for (TreeEdit e : edits) {
        apply(reader, inserter, after, e);
      }
      int changed = countChanges(before, after);
      if (changed == 0) {
        return new CommitResult(head, head, false, 0);
      }
      ObjectId tree = writeTree(inserter, after);
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

  /**
   * Moves {@code branch} back from {@code current} to {@code previous} (or deletes it when previous
   * is null): undoes a commit whose database half failed. Does nothing when the branch has moved on
   * since.
   *
   * @return true when the branch was moved back
   */
  public boolean undo(
      UUID orgId, UUID projectId, String branch, ObjectId current, ObjectId previous) {
    String refName = refName(branch);
    Repository repo = open(orgId, projectId);
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

  /**
   * Writes the files as blobs and a tree holding them (paths relative to the tree, checked by
   * {@link RepoPaths}) and returns the tree's id. Nothing refers to the tree until a commit does.
   */
  public ObjectId writeTree(UUID orgId, UUID projectId, Map<String, byte[]> files) {
    return writeTrees(orgId, projectId, List.of(files)).get(0);
  }

  /**
   * {@link #writeTree} for several sets of files at once, in order: every blob and tree goes into
   * one new pack file (objects the repository already holds are not written again), instead of one
   * loose object file each. A delivery generation writes each render batch this way. Until a commit
   * refers to them the trees are unreachable, and {@link #maintain} keeps them for two weeks like
   * any unreachable object.
   */
  public List<ObjectId> writeTrees(
      UUID orgId, UUID projectId, List<? extends Map<String, byte[]>> fileSets) {
    return Meters.gitWrite("tree", () -> writeTreesNow(orgId, projectId, fileSets));
  }

  private List<ObjectId> writeTreesNow(
      UUID orgId, UUID projectId, List<? extends Map<String, byte[]>> fileSets) {
    fileSets.forEach(files -> files.keySet().forEach(RepoPaths::requireSafe));
    Repository repo = open(orgId, projectId);
    try (ObjectInserter inserter = store.bulkInserter(repo)) {
      List<ObjectId> trees = new ArrayList<>(fileSets.size());
      for (Map<String, byte[]> files : fileSets) {
        SortedMap<String, Entry> entries = new TreeMap<>();
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
          entries.put(
              f.getKey(),
              new Entry(FileMode.REGULAR_FILE, inserter.insert(Constants.OBJ_BLOB, f.getValue())));
        }
        trees.add(writeTree(inserter, entries));
      }
      inserter.flush();
      return trees;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Compacts the repository when bulk writes left too many packs or loose objects (JGit's {@code gc
   * --auto} with the file storage; a DFS garbage collection with PostgreSQL); otherwise does
   * nothing. Unreachable objects younger than two weeks are kept, so trees written by a generation
   * that has not committed yet survive. Never throws: a repository that could not be repacked now
   * is repacked after a later write.
   */
  public void maintain(UUID orgId, UUID projectId) {
    store.maintain(orgId, projectId);
  }

  /**
   * Those of {@code trees} (ids of trees) that the repository holds: a generation reuses an earlier
   * generation's unit tree only when it is still there (a tree no commit refers to is pruned two
   * weeks after it was written).
   */
  public Set<ObjectId> existingTrees(UUID orgId, UUID projectId, Collection<ObjectId> trees) {
    Set<ObjectId> out = new HashSet<>();
    if (trees.isEmpty()) {
      return out;
    }
    Repository repo = open(orgId, projectId);
    try (ObjectReader reader = repo.newObjectReader()) {
      for (ObjectId id : trees) {
        // An object id names its content and type: the id of a tree, when present, is that tree.
        if (reader.has(id)) {
          out.add(id);
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The top of a tree, down to the directories {@code isLeaf} picks.
   *
   * @param leaves each directory {@code isLeaf} accepted, by path relative to the prefix, with its
   *     tree id (not descended into)
   * @param files the files met above those directories, by path relative to the prefix
   */
  public record TreeTop(SortedMap<String, ObjectId> leaves, SortedMap<String, ObjectId> files) {}

  /**
   * Walks the tree at {@code prefix} in a commit, descending into directories until {@code isLeaf}
   * accepts one (its path relative to the prefix): what a generation compares unit by unit without
   * reading every unit's files. Empty when the commit has nothing at {@code prefix}.
   */
  public TreeTop treeTop(
      UUID orgId, UUID projectId, ObjectId commit, String prefix, Predicate<String> isLeaf) {
    SortedMap<String, ObjectId> leaves = new TreeMap<>();
    SortedMap<String, ObjectId> files = new TreeMap<>();
    Optional<ObjectId> top = treeAt(orgId, projectId, commit, prefix);
    if (top.isEmpty()) {
      return new TreeTop(leaves, files);
    }
    Repository repo = open(orgId, projectId);
    try (ObjectReader reader = repo.newObjectReader();
        TreeWalk tw = new TreeWalk(reader)) {
      tw.addTree(top.get());
      tw.setRecursive(false);
      while (tw.next()) {
        String path = tw.getPathString();
        if (tw.isSubtree()) {
          if (isLeaf.test(path)) {
            leaves.put(path, tw.getObjectId(0));
          } else {
            tw.enterSubtree();
          }
        } else {
          files.put(path, tw.getObjectId(0));
        }
      }
      return new TreeTop(leaves, files);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The tree at {@code path} in {@code commit} (empty path: the root), if there is one. */
  public Optional<ObjectId> treeAt(UUID orgId, UUID projectId, ObjectId commit, String path) {
    Repository repo = open(orgId, projectId);
    try (RevWalk walk = new RevWalk(repo)) {
      ObjectId root = walk.parseCommit(commit).getTree();
      if (path.isEmpty()) {
        return Optional.of(root);
      }
      try (TreeWalk tw = TreeWalk.forPath(repo, path, root)) {
        if (tw == null || tw.getFileMode(0) != FileMode.TREE) {
          return Optional.empty();
        }
        return Optional.of(tw.getObjectId(0));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The regular files under {@code prefix} in a commit or tree, keyed by their path relative to
   * {@code prefix} (empty prefix: the whole tree), in path order.
   */
  public SortedMap<String, byte[]> readFiles(
      UUID orgId, UUID projectId, ObjectId commitOrTree, String prefix) {
    Repository repo = open(orgId, projectId);
    try (ObjectReader reader = repo.newObjectReader();
        RevWalk walk = new RevWalk(reader)) {
      ObjectId tree =
          walk.parseAny(commitOrTree) instanceof RevCommit c ? c.getTree() : commitOrTree;
      SortedMap<String, byte[]> out = new TreeMap<>();
      String base = prefix.isEmpty() ? "" : prefix.endsWith("/") ? prefix : prefix + "/";
      for (Map.Entry<String, Entry> e : entries(reader, tree, "").entrySet()) {
        if (e.getKey().startsWith(base) && e.getValue().mode() == FileMode.REGULAR_FILE) {
          out.put(e.getKey().substring(base.length()), reader.open(e.getValue().id()).getBytes());
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The regular files under {@code prefix} in a commit or tree with their blob ids, keyed by path
   * relative to {@code prefix}: what {@link #readFiles} reads, without reading the contents.
   */
  public SortedMap<String, ObjectId> listFiles(
      UUID orgId, UUID projectId, ObjectId commitOrTree, String prefix) {
    Repository repo = open(orgId, projectId);
    try (ObjectReader reader = repo.newObjectReader();
        RevWalk walk = new RevWalk(reader)) {
      ObjectId tree =
          walk.parseAny(commitOrTree) instanceof RevCommit c ? c.getTree() : commitOrTree;
      SortedMap<String, ObjectId> out = new TreeMap<>();
      String base = prefix.isEmpty() ? "" : prefix.endsWith("/") ? prefix : prefix + "/";
      for (Map.Entry<String, Entry> e : entries(reader, tree, "").entrySet()) {
        if (e.getKey().startsWith(base) && e.getValue().mode() == FileMode.REGULAR_FILE) {
          out.put(e.getKey().substring(base.length()), e.getValue().id());
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A file's content in a repository, read only when asked. */
  public interface Blob {
    /** Its size in bytes, without reading it. */
    long size() throws IOException;

    /** Its bytes. */
    byte[] bytes() throws IOException;
  }

  /** What {@link #walkFiles} does with each file. */
  @FunctionalInterface
  public interface FileVisitor {
    /** One file, by its path from the tree's root. */
    void visit(String path, Blob blob) throws IOException;
  }

  /**
   * Visits every entry of a commit's or tree's tree that is not a directory, in Git's path order.
   * The repository's failures are thrown as they are, and so are the visitor's.
   */
  public void walkFiles(UUID orgId, UUID projectId, ObjectId commitOrTree, FileVisitor visitor)
      throws IOException {
    Repository repo = open(orgId, projectId);
    try (ObjectReader reader = repo.newObjectReader();
        RevWalk walk = new RevWalk(reader);
        TreeWalk tw = new TreeWalk(reader)) {
      tw.addTree(walk.parseAny(commitOrTree) instanceof RevCommit c ? c.getTree() : commitOrTree);
      tw.setRecursive(true);
      while (tw.next()) {
        ObjectId id = tw.getObjectId(0);
        visitor.visit(
            tw.getPathString(),
            new Blob() {
              @Override
              public long size() throws IOException {
                return reader.getObjectSize(id, Constants.OBJ_BLOB);
              }

              @Override
              public byte[] bytes() throws IOException {
                return reader.open(id).getBytes();
              }
            });
      }
    }
  }

  /** A commit in one line: its id, the first line of its message, its author's name and when. */
  public record CommitLine(String id, String subject, String author, Instant at) {}

  /**
   * The commits reachable from {@code from} that changed something under {@code path}, newest
   * first: skips the first {@code skip} and returns at most {@code count}.
   */
  public List<CommitLine> commitsChanging(
      UUID orgId, UUID projectId, ObjectId from, String path, long skip, long count) {
    List<CommitLine> out = new ArrayList<>();
    try (RevWalk walk = new RevWalk(open(orgId, projectId))) {
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

  /**
   * The id of the object a repository lacks, when {@code failure} is Git's "missing object" (a
   * repository restored from an older backup than the database that names the object).
   */
  public static Optional<String> missingObject(Throwable failure) {
    return failure instanceof MissingObjectException missing
        ? Optional.of(missing.getObjectId().name())
        : Optional.empty();
  }

  /** A commit as the API shows it. */
  public record CommitInfo(
      String id,
      String author,
      String authorEmail,
      Instant at,
      String message,
      List<String> parents) {}

  /** The newest {@code limit} commits of a branch, newest first; empty when it does not exist. */
  public List<CommitInfo> log(UUID orgId, UUID projectId, String branch, int limit) {
    Optional<ObjectId> head = head(orgId, projectId, branch);
    if (head.isEmpty()) {
      return List.of();
    }
    List<CommitInfo> out = new ArrayList<>();
    try (RevWalk walk = new RevWalk(open(orgId, projectId))) {
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

  /** One commit, if the repository has it. */
  public Optional<CommitInfo> commitInfo(UUID orgId, UUID projectId, String id) {
    try (RevWalk walk = new RevWalk(open(orgId, projectId))) {
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

  @Override
  public void close() {
    store.close();
  }

  // ---- trees ---------------------------------------------------------------------------

  private record Entry(FileMode mode, ObjectId id) {}

  /** Every non-tree entry of a tree, by full path, with {@code prefix} in front. */
  private static SortedMap<String, Entry> entries(ObjectReader reader, ObjectId tree, String prefix)
      throws IOException {
    SortedMap<String, Entry> out = new TreeMap<>();
    try (TreeWalk tw = new TreeWalk(reader)) {
      tw.addTree(tree);
      tw.setRecursive(true);
      while (tw.next()) {
        out.put(prefix + tw.getPathString(), new Entry(tw.getFileMode(0), tw.getObjectId(0)));
      }
    }
    return out;
  }

  private static void apply(
      ObjectReader reader, ObjectInserter inserter, SortedMap<String, Entry> files, TreeEdit edit)
      throws IOException {
    switch (edit) {
      case TreeEdit.PutFile f -> {
        removeUnder(files, f.path());
        removeAncestors(files, f.path());
        files.put(
            f.path(),
            new Entry(FileMode.REGULAR_FILE, inserter.insert(Constants.OBJ_BLOB, f.content())));
      }
      case TreeEdit.Delete d -> removeUnder(files, d.path());
      case TreeEdit.PutTree t -> {
        SortedMap<String, Entry> put = entries(reader, t.tree(), "");
        for (Map.Entry<String, Entry> e : put.entrySet()) {
          String full = t.path().isEmpty() ? e.getKey() : t.path() + "/" + e.getKey();
          RepoPaths.requireSafe(full);
          if (e.getValue().mode() != FileMode.REGULAR_FILE) {
            // A symbolic link could point out of a checkout; the hub writes regular files only.
            throw new UnsafePathException(
                full, "must be a regular file, not a symbolic link, submodule or executable");
          }
        }
        if (t.path().isEmpty()) {
          files.clear();
          files.putAll(put);
        } else {
          removeUnder(files, t.path());
          removeAncestors(files, t.path());
          put.forEach((p, e) -> files.put(t.path() + "/" + p, e));
        }
      }
    }
  }

  /**
   * Removes the files that sit where a directory of {@code path} must go: writing {@code a/b}
   * replaces a file {@code a}. Keeping both would write a tree with two entries named {@code a}.
   */
  private static void removeAncestors(SortedMap<String, Entry> files, String path) {
    for (int slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) {
      files.remove(path.substring(0, slash));
    }
  }

  /** Removes {@code path} itself and everything under it. */
  private static void removeUnder(SortedMap<String, Entry> files, String path) {
    files.remove(path);
    files.subMap(path + "/", path + "0").clear(); // '0' sorts right after '/'
  }

  private static int countChanges(SortedMap<String, Entry> before, SortedMap<String, Entry> after) {
    int changed = 0;
    for (Map.Entry<String, Entry> e : after.entrySet()) {
      if (!e.getValue().equals(before.get(e.getKey()))) {
        changed++;
      }
    }
    for (String path : before.keySet()) {
      if (!after.containsKey(path)) {
        changed++;
      }
    }
    return changed;
  }

  private static ObjectId writeTree(ObjectInserter inserter, SortedMap<String, Entry> files)
      throws IOException {
    DirCache index = DirCache.newInCore();
    DirCacheBuilder builder = index.builder();
    for (Map.Entry<String, Entry> e : files.entrySet()) {
      DirCacheEntry entry = new DirCacheEntry(e.getKey());
      entry.setFileMode(e.getValue().mode());
      entry.setObjectId(e.getValue().id());
      builder.add(entry);
    }
    builder.finish();
    return index.writeTree(inserter);
  }

  private static String firstLine(String message) {
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
