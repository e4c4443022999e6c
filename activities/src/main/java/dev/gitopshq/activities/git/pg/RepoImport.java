package dev.gitopshq.activities.git.pg;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;

/**
 * A whole repository written into the PostgreSQL storage at once (the file-to-PostgreSQL
 * migration): objects first, into a repository nobody sees yet, then every ref in one transaction.
 * Until {@link #publish} commits, readers see what they saw before — no repository (the project's
 * row exists without HEAD, which {@link PostgresRepoStore#exists} does not count), or the old refs
 * over the old packs — so an import that stops half-way (killed, a database error) leaves nothing
 * half-written visible. Publishing replaces every ref and retires the packs that were listed when
 * the import began; they stay readable an hour for readers that still hold the older pack list, as
 * after maintenance.
 */
public final class RepoImport implements AutoCloseable {
  private final Sql sql;
  private final UUID orgId;
  private final UUID projectId;
  private final PgRepository repo;
  private final Set<String> packsBefore;
  private final Map<String, String> refsBefore;

  private RepoImport(
      Sql sql,
      UUID orgId,
      UUID projectId,
      PgRepository repo,
      Set<String> packsBefore,
      Map<String, String> refsBefore) {
    this.sql = sql;
    this.orgId = orgId;
    this.projectId = projectId;
    this.repo = repo;
    this.packsBefore = packsBefore;
    this.refsBefore = refsBefore;
  }

  static RepoImport begin(Sql sql, UUID orgId, UUID projectId) throws IOException {
    // The row the packs hang on; without a HEAD ref it is not a repository to anyone else.
    sql.update(
        "insert into git_repositories (org_id, project_id) values (?, ?) on conflict do nothing",
        orgId,
        projectId);
    Set<String> packs =
        sql.query(
            "select pack_name from git_packs where org_id = ? and project_id = ?"
                + " and state = 'current'",
            rs -> {
              Set<String> out = new HashSet<>();
              while (rs.next()) {
                out.add(rs.getString(1));
              }
              return out;
            },
            orgId,
            projectId);
    Map<String, String> refs = sql.inTransaction(c -> refRows(c, orgId, projectId));
    PgRepository repo = new PgRepository.Builder(sql, orgId, projectId).build();
    return new RepoImport(sql, orgId, projectId, repo, packs, refs);
  }

  /** Where the objects go: write them with its inserter; its refs are not to be moved. */
  public Repository repository() {
    return repo;
  }

  /**
   * Makes the import visible, in one transaction: the repository's refs become exactly {@code refs}
   * with HEAD pointing at {@code head}, and the packs listed before the import began are retired.
   * Every object the refs name must be stored already.
   *
   * @throws IOException when the refs changed since the import began (someone wrote the repository
   *     meanwhile: nothing is changed) or the database failed (nothing is changed either)
   */
  public void publish(SortedMap<String, ObjectId> refs, String head) throws IOException {
    sql.inTransaction(
        c -> {
          // Lock the repository's row first, as a pack commit does, and move its pack version:
          // every reader reads the pack list again before it uses the new refs.
          PgObjDatabase.movePackVersion(c, orgId, projectId);
          Map<String, String> now = refRows(c, orgId, projectId);
          if (!now.equals(refsBefore)) {
            throw new IOException(
                "the refs of project "
                    + projectId
                    + " changed while it was being imported; nothing was replaced");
          }
          for (String pack : packsBefore) {
            PgObjDatabase.retirePack(c, orgId, projectId, pack);
          }
          Sql.update(
              c, "delete from git_refs where org_id = ? and project_id = ?", orgId, projectId);
          for (Map.Entry<String, ObjectId> e : refs.entrySet()) {
            Sql.update(
                c,
                "insert into git_refs (org_id, project_id, name, object_id) values (?, ?, ?, ?)",
                orgId,
                projectId,
                e.getKey(),
                e.getValue().name());
          }
          Sql.update(
              c,
              "insert into git_refs (org_id, project_id, name, target) values (?, ?, ?, ?)",
              orgId,
              projectId,
              Constants.HEAD,
              head);
          return null;
        });
  }

  /** The refs' rows (HEAD as {@code ref: <target>}), locked until the transaction ends. */
  private static Map<String, String> refRows(Connection c, UUID orgId, UUID projectId)
      throws SQLException, IOException {
    return Sql.query(
        c,
        "select name, coalesce(object_id, 'ref: ' || target) from git_refs"
            + " where org_id = ? and project_id = ? for update",
        rs -> {
          Map<String, String> out = new TreeMap<>();
          while (rs.next()) {
            out.put(rs.getString(1), rs.getString(2));
          }
          return out;
        },
        orgId,
        projectId);
  }

  /** Closes the import's repository; what was not published stays invisible. */
  @Override
  public void close() {
    repo.close();
  }
}
