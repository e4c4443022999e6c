package dev.gitopshq.activities.git;

import java.util.UUID;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.Repository;

/**
 * Where the hosted repositories' objects and refs are kept: {@link FileRepoStore} (bare
 * repositories in a directory) or {@code pg.PostgresRepoStore} (packs and refs in PostgreSQL).
 * {@link ProjectRepos} builds every commit and reads every tree the same way on either; a store
 * only creates, opens, compacts and deletes repositories.
 *
 * <p>A store moves refs only by compare-and-set, so any number of processes may write the same
 * repository: the one that loses retries on the new tip.
 */
public interface RepoStore extends AutoCloseable {
  /** The name {@code GITOPSHQ_GIT_STORAGE} gives this store: {@code file} or {@code postgres}. */
  String kind();

  /** Whether the project has a repository. */
  boolean exists(UUID orgId, UUID projectId);

  /**
   * Creates the project's repository, empty, with HEAD pointing at {@code refs/heads/<main>};
   * nothing when it exists.
   */
  void create(UUID orgId, UUID projectId, String mainBranch);

  /**
   * The project's repository, kept open by the store and safe for concurrent use; what another
   * process wrote before this call is visible.
   *
   * @throws NoSuchRepositoryException when the project has none
   */
  Repository open(UUID orgId, UUID projectId);

  /** Removes the project's repository and everything in it; nothing when there is none. */
  void delete(UUID orgId, UUID projectId);

  /** An inserter that writes all it is given as one pack when flushed. */
  ObjectInserter bulkInserter(Repository repo);

  /**
   * Compacts the repository when writes left too many packs (or loose objects); keeps every object,
   * reachable or not, younger than two weeks. Never throws.
   */
  void maintain(UUID orgId, UUID projectId);

  /** Closes every repository the store keeps open. */
  @Override
  void close();
}
