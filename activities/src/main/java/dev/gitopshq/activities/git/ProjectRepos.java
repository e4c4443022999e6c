package dev.gitopshq.activities.git;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.UUID;
import java.util.function.Predicate;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;

/**
 * The hosted repositories: one repository per project, kept by a {@link RepoStore} (bare
 * repositories under {@code <root>/<orgId>/<projectId>.git}, or packs and refs in PostgreSQL). Only
 * the hub writes them, and only here: every commit is built from the branch's current tree plus a
 * list of {@link TreeEdit}s and moved onto the branch with a compare-and-set ref update, so two
 * writers (threads or replicas sharing the store) never lose each other's commits. The hub writes
 * only regular files and trees: the repositories hold no symbolic links, submodules or executables.
 *
 * <p>This class owns the repositories' lifecycle (create, open, delete, maintain, close) and is the
 * one entry point the rest of the hub uses; the work is done by {@link RepoWrites} (commits, undo,
 * bulk trees), {@link RepoReads} (trees and files) and {@link RepoHistory} (branch heads and
 * commits), each over the same store.
 */
public final class ProjectRepos implements AutoCloseable {
  /** The branch configuration and generated manifests are committed to. */
  public static final String MAIN = "main";

  private final RepoStore store;
  private final RepoWrites writes;
  private final RepoReads reads;
  private final RepoHistory history;

  /** Bare repositories in a directory: {@code new ProjectRepos(new FileRepoStore(root))}. */
  public ProjectRepos(Path root) {
    this(new FileRepoStore(root));
  }

  /** The repositories {@code store} keeps; closing this closes the store. */
  public ProjectRepos(RepoStore store) {
    this.store = Objects.requireNonNull(store, "store");
    this.writes = new RepoWrites(store);
    this.reads = new RepoReads(store);
    this.history = new RepoHistory(store);
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

  @Override
  public void close() {
    store.close();
  }

  // ---- writes (RepoWrites) ------------------------------------------------------------

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
    return writes.commit(
        orgId, projectId, new RepoWrites.Request(branch, expectedHead, edits, author, message));
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
    return writes.undo(orgId, projectId, branch, current, previous);
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
    return writes.writeTrees(orgId, projectId, fileSets);
  }

  // ---- trees and files (RepoReads) ----------------------------------------------------

  /**
   * Those of {@code trees} (ids of trees) that the repository holds: a generation reuses an earlier
   * generation's unit tree only when it is still there (a tree no commit refers to is pruned two
   * weeks after it was written).
   */
  public Set<ObjectId> existingTrees(UUID orgId, UUID projectId, Collection<ObjectId> trees) {
    return reads.existingTrees(orgId, projectId, trees);
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
    return reads.treeTop(orgId, projectId, commit, prefix, isLeaf);
  }

  /** The tree at {@code path} in {@code commit} (empty path: the root), if there is one. */
  public Optional<ObjectId> treeAt(UUID orgId, UUID projectId, ObjectId commit, String path) {
    return reads.treeAt(orgId, projectId, commit, path);
  }

  /**
   * The regular files under {@code prefix} in a commit or tree, keyed by their path relative to
   * {@code prefix} (empty prefix: the whole tree), in path order.
   */
  public SortedMap<String, byte[]> readFiles(
      UUID orgId, UUID projectId, ObjectId commitOrTree, String prefix) {
    return reads.readFiles(orgId, projectId, commitOrTree, prefix);
  }

  /**
   * The regular files under {@code prefix} in a commit or tree with their blob ids, keyed by path
   * relative to {@code prefix}: what {@link #readFiles} reads, without reading the contents.
   */
  public SortedMap<String, ObjectId> listFiles(
      UUID orgId, UUID projectId, ObjectId commitOrTree, String prefix) {
    return reads.listFiles(orgId, projectId, commitOrTree, prefix);
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
    reads.walkFiles(orgId, projectId, commitOrTree, visitor);
  }

  // ---- branches and commits (RepoHistory) ---------------------------------------------

  /** The commit a branch points at. */
  public Optional<ObjectId> head(UUID orgId, UUID projectId, String branch) {
    return history.head(orgId, projectId, branch);
  }

  /** A commit in one line: its id, the first line of its message, its author's name and when. */
  public record CommitLine(String id, String subject, String author, Instant at) {}

  /**
   * The commits reachable from {@code from} that changed something under {@code path}, newest
   * first: skips the first {@code skip} and returns at most {@code count}.
   */
  public List<CommitLine> commitsChanging(
      UUID orgId, UUID projectId, ObjectId from, String path, long skip, long count) {
    return history.commitsChanging(orgId, projectId, from, path, skip, count);
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
    return history.log(orgId, projectId, branch, limit);
  }

  /** One commit, if the repository has it. */
  public Optional<CommitInfo> commitInfo(UUID orgId, UUID projectId, String id) {
    return history.commitInfo(orgId, projectId, id);
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
}
