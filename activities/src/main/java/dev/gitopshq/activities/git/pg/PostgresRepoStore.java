package dev.gitopshq.activities.git.pg;

import dev.gitopshq.activities.git.NoSuchRepositoryException;
import dev.gitopshq.activities.git.RepoStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.eclipse.jgit.internal.storage.dfs.DfsGarbageCollector;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.Repository;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hosted repositories in PostgreSQL ({@code GITOPSHQ_GIT_STORAGE=postgres}): JGit's DFS
 * repositories with their packs cut into 64 KiB rows and their refs as rows (tables {@code
 * git_repositories}, {@code git_refs}, {@code git_packs}, {@code git_pack_files}, {@code
 * git_pack_chunks}; every row carries org_id and every query filters by it). Any number of hub
 * replicas share them with no shared file system: refs move by compare-and-set in the database,
 * packs are immutable once listed, and each use of a repository first checks that the list of packs
 * it holds is current.
 *
 * <p>Memory: a pack is written and read one chunk at a time (at most {@link ChunkChannel#MAX_AHEAD}
 * chunks per reader); what is read is kept in JGit's block cache ({@link BlockCache}: one per JVM,
 * 32 MiB by default, GITOPSHQ_GIT_BLOCK_CACHE_MB).
 */
public final class PostgresRepoStore implements RepoStore {
  private static final Logger log = LoggerFactory.getLogger(PostgresRepoStore.class);

  /** Compact when more than this many packs are listed (each commit writes one). */
  static final int AUTO_PACK_LIMIT = 50;

  /** Replaced packs stay readable this long, for readers that still hold the older list. */
  static final Duration REPLACED_KEPT = Duration.ofHours(1);

  /** Packs a writer never committed are deleted after this long. */
  static final Duration ABANDONED_AFTER = Duration.ofDays(1);

  /** Unreachable objects (trees of a generation not committed yet) are kept this long. */
  static final Duration GARBAGE_KEPT = Duration.ofDays(14);

  private final Sql sql;
  private final ConcurrentMap<String, PgRepository> open = new ConcurrentHashMap<>();

  /** A store with JGit's block cache as it is (its default size unless configured before). */
  public PostgresRepoStore(DataSource dataSource) {
    this.sql = new Sql(dataSource);
  }

  /** A store that first sizes JGit's block cache to {@code blockCacheMb} MiB. */
  public PostgresRepoStore(DataSource dataSource, int blockCacheMb) {
    this(dataSource);
    BlockCache.configure(blockCacheMb);
  }

  @Override
  public String kind() {
    return "postgres";
  }

  private static String key(UUID orgId, UUID projectId) {
    return orgId + "/" + projectId;
  }

  /**
   * A repository is there once it has HEAD: {@link #create} writes both in one transaction, and an
   * import ({@link #beginImport}) writes the row first and HEAD only when it publishes.
   */
  @Override
  public boolean exists(UUID orgId, UUID projectId) {
    try {
      return sql.query(
          "select 1 from git_refs where org_id = ? and project_id = ? and name = 'HEAD'",
          rs -> rs.next(),
          orgId,
          projectId);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void create(UUID orgId, UUID projectId, String mainBranch) {
    try {
      sql.inTransaction(
          c -> {
            Sql.update(
                c,
                "insert into git_repositories (org_id, project_id) values (?, ?)"
                    + " on conflict do nothing",
                orgId,
                projectId);
            Sql.update(
                c,
                "insert into git_refs (org_id, project_id, name, target) values (?, ?, ?, ?)"
                    + " on conflict do nothing",
                orgId,
                projectId,
                Constants.HEAD,
                Constants.R_HEADS + mainBranch);
            return null;
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the repository of project " + projectId, e);
    }
  }

  /**
   * Starts writing the project's whole repository ({@link RepoImport}): nothing of it is visible
   * until it is published, and publishing replaces whatever the project had. The caller closes it.
   */
  public RepoImport beginImport(UUID orgId, UUID projectId) {
    try {
      return RepoImport.begin(sql, orgId, projectId);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot import the repository of project " + projectId, e);
    }
  }

  @Override
  public Repository open(UUID orgId, UUID projectId) {
    return openPg(orgId, projectId);
  }

  private PgRepository openPg(UUID orgId, UUID projectId) {
    String key = key(orgId, projectId);
    try {
      PgRepository cached = open.get(key);
      if (cached != null) {
        if (cached.objects().refreshIfStale()) {
          return cached;
        }
        // Another replica deleted it.
        if (open.remove(key, cached)) {
          cached.close();
        }
        throw new NoSuchRepositoryException("project " + projectId + " has no repository");
      }
      if (!exists(orgId, projectId)) {
        throw new NoSuchRepositoryException("project " + projectId + " has no repository");
      }
      return open.computeIfAbsent(
          key,
          k -> {
            try {
              return new PgRepository.Builder(sql, orgId, projectId).build();
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the repository of project " + projectId, e);
    }
  }

  @Override
  public void delete(UUID orgId, UUID projectId) {
    PgRepository r = open.remove(key(orgId, projectId));
    if (r != null) {
      r.close();
    }
    try {
      sql.update(
          "delete from git_repositories where org_id = ? and project_id = ?", orgId, projectId);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the repository of project " + projectId, e);
    }
  }

  /** JGit's DFS inserter writes one pack per flush anyway. */
  @Override
  public ObjectInserter bulkInserter(Repository repo) {
    return repo.newObjectInserter();
  }

  /**
   * Deletes packs replaced more than an hour ago and packs abandoned while being written; then,
   * when more than {@link #AUTO_PACK_LIMIT} packs are listed, one replica at a time (an hour's
   * lease in {@code git_repositories.maintained_at}) repacks with JGit's DFS garbage collector: the
   * reachable objects into one pack, the unreachable ones into a garbage pack kept for two weeks.
   * Writers may go on meanwhile: their new packs are not among those replaced.
   */
  @Override
  public void maintain(UUID orgId, UUID projectId) {
    try {
      PgRepository repo = openPg(orgId, projectId);
      sql.update(
          "delete from git_packs where org_id = ? and project_id = ?"
              + " and ((state = 'replaced' and replaced_at < now() - make_interval(secs => ?))"
              + " or (state = 'writing' and created_at < now() - make_interval(secs => ?)))",
          orgId,
          projectId,
          (double) REPLACED_KEPT.toSeconds(),
          (double) ABANDONED_AFTER.toSeconds());
      if (repo.objects().currentPacks() <= AUTO_PACK_LIMIT) {
        return;
      }
      int leased =
          sql.update(
              "update git_repositories set maintained_at = now()"
                  + " where org_id = ? and project_id = ?"
                  + " and (maintained_at is null or maintained_at < now() - interval '1 hour')",
              orgId,
              projectId);
      if (leased == 0) {
        return;
      }
      try {
        DfsGarbageCollector gc = new DfsGarbageCollector(repo);
        gc.setConvertToReftable(false);
        gc.setGarbageTtl(GARBAGE_KEPT.toMillis(), TimeUnit.MILLISECONDS);
        gc.pack(NullProgressMonitor.INSTANCE);
      } finally {
        sql.update(
            "update git_repositories set maintained_at = null where org_id = ? and project_id = ?",
            orgId,
            projectId);
      }
    } catch (IOException | UncheckedIOException e) {
      log.warn("repacking the repository of project {} failed: {}", projectId, e.toString());
    }
  }

  @Override
  public void close() {
    open.values().forEach(Repository::close);
    open.clear();
  }
}
