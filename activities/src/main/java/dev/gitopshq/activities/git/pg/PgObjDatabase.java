package dev.gitopshq.activities.git.pg;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jgit.internal.storage.dfs.DfsObjDatabase;
import org.eclipse.jgit.internal.storage.dfs.DfsOutputStream;
import org.eclipse.jgit.internal.storage.dfs.DfsPackDescription;
import org.eclipse.jgit.internal.storage.dfs.DfsPackFile;
import org.eclipse.jgit.internal.storage.dfs.DfsReaderOptions;
import org.eclipse.jgit.internal.storage.dfs.ReadableChannel;
import org.eclipse.jgit.internal.storage.pack.PackExt;

/**
 * A repository's packs in PostgreSQL ({@code git_packs}, {@code git_pack_files}, {@code
 * git_pack_chunks}). Packs never change once written, so what JGit's block cache holds of them
 * stays true; only the list of packs changes, and {@code git_repositories.pack_version} says when:
 * {@link #refreshIfStale} (before each use of the repository) and every ref read compare it with
 * the version this list was read at, and drop the list when another replica changed it.
 */
final class PgObjDatabase extends DfsObjDatabase {
  private final Sql sql;
  private final UUID orgId;
  private final UUID projectId;

  /** The pack_version the current pack list was read at; -1 before the first read. */
  private final AtomicLong version = new AtomicLong(-1);

  PgObjDatabase(PgRepository repo, Sql sql, UUID orgId, UUID projectId) {
    super(repo, new DfsReaderOptions());
    this.sql = sql;
    this.orgId = orgId;
    this.projectId = projectId;
  }

  /**
   * Drops the pack list when another writer changed it since it was read: the next object lookup
   * reads it again.
   *
   * @return false when the repository no longer exists
   */
  boolean refreshIfStale() throws IOException {
    Long current = packVersion();
    if (current == null) {
      clearCache();
      return false;
    }
    noticeVersion(current);
    return true;
  }

  /** The repository's pack-list version in PostgreSQL; null when the repository is gone. */
  private Long packVersion() throws IOException {
    return sql.query(
        "select pack_version from git_repositories where org_id = ? and project_id = ?",
        rs -> rs.next() ? rs.getLong(1) : null,
        orgId,
        projectId);
  }

  /**
   * Moves the repository's pack-list version on, in the caller's transaction, and returns the new
   * one: the repository's row stays locked until the transaction ends, so writers that change the
   * pack list or the refs go one after the other, and every reader reads the pack list again.
   *
   * @throws IOException when the repository is gone
   */
  static long movePackVersion(Connection c, UUID orgId, UUID projectId)
      throws SQLException, IOException {
    Long v =
        Sql.query(
            c,
            "update git_repositories set pack_version = pack_version + 1"
                + " where org_id = ? and project_id = ? returning pack_version",
            rs -> rs.next() ? rs.getLong(1) : null,
            orgId,
            projectId);
    if (v == null) {
      throw new IOException("the repository of project " + projectId + " is gone");
    }
    return v;
  }

  /**
   * Takes a current pack out of the list, in the caller's transaction; its rows stay for readers
   * that hold the older list until maintenance removes them ({@code PostgresRepoStore#maintain}).
   */
  static void retirePack(Connection c, UUID orgId, UUID projectId, String pack)
      throws SQLException {
    Sql.update(
        c,
        "update git_packs set state = 'replaced', replaced_at = now()"
            + " where org_id = ? and project_id = ? and pack_name = ? and state = 'current'",
        orgId,
        projectId,
        pack);
  }

  /** The pack list's version is {@code current} now (read with the refs, or just above). */
  void noticeVersion(long current) {
    if (version.get() != current) {
      clearCache();
    }
  }

  @Override
  protected DfsPackDescription newPack(PackSource source) throws IOException {
    String name = "pack-" + UUID.randomUUID().toString().replace("-", "") + "-" + source.name();
    sql.update(
        "insert into git_packs (org_id, project_id, pack_name, source, state)"
            + " values (?, ?, ?, ?, 'writing')",
        orgId,
        projectId,
        name,
        source.name());
    return new DfsPackDescription(getRepository().getDescription(), name, source);
  }

  @Override
  protected void commitPackImpl(
      Collection<DfsPackDescription> desc, Collection<DfsPackDescription> replace)
      throws IOException {
    long next =
        sql.inTransaction(
            c -> {
              // Lock the repository's row first: two writers list packs one after the other.
              long v = movePackVersion(c, orgId, projectId);
              for (DfsPackDescription d : desc) {
                int n =
                    Sql.update(
                        c,
                        "update git_packs set state = 'current', object_count = ?"
                            + " where org_id = ? and project_id = ? and pack_name = ?"
                            + " and state = 'writing'",
                        d.getObjectCount(),
                        orgId,
                        projectId,
                        d.getPackName());
                if (n != 1) {
                  throw new IOException("pack " + d.getPackName() + " is not being written");
                }
              }
              if (replace != null) {
                for (DfsPackDescription d : replace) {
                  retirePack(c, orgId, projectId, d.getPackName());
                }
              }
              return v;
            });
    // JGit adds the new packs to the list it holds; when nobody else changed the list meanwhile,
    // that list is the new version's.
    version.compareAndSet(next - 1, next);
  }

  @Override
  protected void rollbackPack(Collection<DfsPackDescription> desc) {
    for (DfsPackDescription d : desc) {
      try {
        sql.update(
            "delete from git_packs where org_id = ? and project_id = ? and pack_name = ?"
                + " and state = 'writing'",
            orgId,
            projectId,
            d.getPackName());
      } catch (IOException e) {
        // Maintenance deletes packs left 'writing' after a day.
      }
    }
  }

  @Override
  protected List<DfsPackDescription> listPacks() throws IOException {
    record Row(String name, String source, long objects, long created, String ext, long size) {}
    // The version first: a pack listed meanwhile makes the next check read the list again.
    Long v = packVersion();
    if (v == null) {
      return new ArrayList<>();
    }
    List<Row> rows =
        sql.query(
            "select p.pack_name, p.source, p.object_count,"
                + " (extract(epoch from p.created_at) * 1000)::bigint, f.ext, f.size"
                + " from git_packs p join git_pack_files f"
                + " on f.org_id = p.org_id and f.project_id = p.project_id"
                + " and f.pack_name = p.pack_name"
                + " where p.org_id = ? and p.project_id = ? and p.state = 'current'",
            rs -> {
              List<Row> out = new ArrayList<>();
              while (rs.next()) {
                out.add(
                    new Row(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getLong(3),
                        rs.getLong(4),
                        rs.getString(5),
                        rs.getLong(6)));
              }
              return out;
            },
            orgId,
            projectId);
    Map<String, DfsPackDescription> packs = new LinkedHashMap<>();
    for (Row r : rows) {
      DfsPackDescription d =
          packs.computeIfAbsent(
              r.name(),
              n ->
                  new DfsPackDescription(
                          getRepository().getDescription(), n, PackSource.valueOf(r.source()))
                      .setLastModified(r.created())
                      .setObjectCount(r.objects()));
      PackExt ext = ext(r.ext());
      if (ext != null) {
        d.addFileExt(ext);
        d.setFileSize(ext, r.size());
        d.setBlockSize(ext, PackFileKey.CHUNK);
      }
    }
    version.set(v);
    // Only packs whose pack and index files are both complete can be read.
    List<DfsPackDescription> out = new ArrayList<>();
    for (DfsPackDescription d : packs.values()) {
      if (d.hasFileExt(PackExt.PACK) && d.hasFileExt(PackExt.INDEX)) {
        out.add(d);
      }
    }
    return out;
  }

  private static PackExt ext(String name) {
    for (PackExt e : PackExt.values()) {
      if (e.getExtension().equals(name)) {
        return e;
      }
    }
    return null;
  }

  @Override
  protected ReadableChannel openFile(DfsPackDescription desc, PackExt ext) throws IOException {
    PackFileKey key = key(desc, ext);
    Long size =
        sql.query(
            "select size from git_pack_files"
                + " where org_id = ? and project_id = ? and pack_name = ? and ext = ?",
            rs -> rs.next() ? rs.getLong(1) : null,
            orgId,
            projectId,
            key.packName(),
            key.ext());
    if (size == null) {
      throw new FileNotFoundException(desc.getFileName(ext));
    }
    return new ChunkChannel(sql, key, size);
  }

  @Override
  protected DfsOutputStream writeFile(DfsPackDescription desc, PackExt ext) {
    return new ChunkOutputStream(sql, key(desc, ext));
  }

  private PackFileKey key(DfsPackDescription desc, PackExt ext) {
    return new PackFileKey(orgId, projectId, desc.getPackName(), ext.getExtension());
  }

  @Override
  public long getApproximateObjectCount() {
    long count = 0;
    for (DfsPackFile p : getCurrentPacks()) {
      count += p.getPackDescription().getObjectCount();
    }
    return count;
  }

  /** The number of packs listed now (what maintenance compacts). */
  long currentPacks() throws IOException {
    return sql.query(
        "select count(*) from git_packs where org_id = ? and project_id = ? and state = 'current'",
        rs -> rs.next() ? rs.getLong(1) : 0L,
        orgId,
        projectId);
  }
}
