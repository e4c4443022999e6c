package dev.gitopshq.activities.git.pg;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.jgit.internal.storage.dfs.DfsRefDatabase;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectIdRef;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.ReflogEntry;
import org.eclipse.jgit.lib.ReflogReader;
import org.eclipse.jgit.lib.SymbolicRef;
import org.eclipse.jgit.util.RefList;

/**
 * A repository's refs in PostgreSQL ({@code git_refs}). Every read goes to the database (one query
 * for all refs of the repository), so a replica never acts on a branch another replica has moved;
 * every write is one conditional statement that changes the row only while it still holds the value
 * the writer read (compare-and-set), so a writer that lost gets {@code LOCK_FAILURE} and tries
 * again on the new tip. There is no reflog: the file storage's reflog is written but read by
 * nothing, and the audit log records who changed what.
 */
final class PgRefDatabase extends DfsRefDatabase {
  private final Sql sql;
  private final UUID orgId;
  private final UUID projectId;
  private final PgObjDatabase objects;

  PgRefDatabase(PgRepository repo, Sql sql, UUID orgId, UUID projectId, PgObjDatabase objects) {
    super(repo);
    this.sql = sql;
    this.orgId = orgId;
    this.projectId = projectId;
    this.objects = objects;
  }

  @Override
  public Ref exactRef(String name) throws IOException {
    refresh();
    return super.exactRef(name);
  }

  @Override
  public Map<String, Ref> getRefs(String prefix) throws IOException {
    refresh();
    return super.getRefs(prefix);
  }

  @Override
  public boolean isNameConflicting(String refName) throws IOException {
    refresh();
    return super.isNameConflicting(refName);
  }

  @Override
  protected RefCache scanAllRefs() throws IOException {
    record Row(String name, String id, String target) {}
    long[] packVersion = {-1};
    List<Row> rows =
        sql.query(
            "select g.pack_version, r.name, r.object_id, r.target from git_repositories g"
                + " left join git_refs r on r.org_id = g.org_id and r.project_id = g.project_id"
                + " where g.org_id = ? and g.project_id = ?",
            rs -> {
              List<Row> out = new ArrayList<>();
              while (rs.next()) {
                packVersion[0] = rs.getLong(1);
                if (rs.getString(2) != null) {
                  out.add(new Row(rs.getString(2), rs.getString(3), rs.getString(4)));
                }
              }
              return out;
            },
            orgId,
            projectId);
    // A ref is written after the pack holding its commit is listed: with the pack list of this
    // version (or a later one), every object the refs name can be found.
    if (packVersion[0] >= 0) {
      objects.noticeVersion(packVersion[0]);
    }
    RefList.Builder<Ref> ids = new RefList.Builder<>();
    RefList.Builder<Ref> sym = new RefList.Builder<>();
    for (Row r : rows) {
      if (r.target() != null) {
        Ref ref =
            new SymbolicRef(r.name(), new ObjectIdRef.Unpeeled(Ref.Storage.NEW, r.target(), null));
        ids.add(ref);
        sym.add(ref);
      } else {
        ids.add(
            new ObjectIdRef.Unpeeled(Ref.Storage.PACKED, r.name(), ObjectId.fromString(r.id())));
      }
    }
    ids.sort();
    sym.sort();
    return new RefCache(ids.toRefList(), sym.toRefList());
  }

  @Override
  protected boolean compareAndPut(Ref oldRef, Ref newRef) throws IOException {
    String name = newRef.getName();
    String newId = newRef.isSymbolic() ? null : newRef.getObjectId().name();
    String newTarget = newRef.isSymbolic() ? newRef.getTarget().getName() : null;
    if (!oldRef.isSymbolic()
        && oldRef.getObjectId() == null
        && oldRef.getStorage() == Ref.Storage.NEW) {
      return sql.update(
              "insert into git_refs (org_id, project_id, name, object_id, target)"
                  + " values (?, ?, ?, ?, ?) on conflict do nothing",
              orgId,
              projectId,
              name,
              newId,
              newTarget)
          == 1;
    }
    if (oldRef.isSymbolic()) {
      return sql.update(
              "update git_refs set object_id = ?, target = ?"
                  + " where org_id = ? and project_id = ? and name = ? and target = ?",
              newId,
              newTarget,
              orgId,
              projectId,
              name,
              oldRef.getTarget().getName())
          == 1;
    }
    if (oldRef.getObjectId() == null) {
      return false;
    }
    return sql.update(
            "update git_refs set object_id = ?, target = ?"
                + " where org_id = ? and project_id = ? and name = ? and object_id = ?",
            newId,
            newTarget,
            orgId,
            projectId,
            name,
            oldRef.getObjectId().name())
        == 1;
  }

  @Override
  protected boolean compareAndRemove(Ref oldRef) throws IOException {
    if (oldRef.isSymbolic()) {
      return sql.update(
              "delete from git_refs where org_id = ? and project_id = ? and name = ?"
                  + " and target = ?",
              orgId,
              projectId,
              oldRef.getName(),
              oldRef.getTarget().getName())
          == 1;
    }
    if (oldRef.getObjectId() == null) {
      return false;
    }
    return sql.update(
            "delete from git_refs where org_id = ? and project_id = ? and name = ?"
                + " and object_id = ?",
            orgId,
            projectId,
            oldRef.getName(),
            oldRef.getObjectId().name())
        == 1;
  }

  /** Nothing to store: refs are peeled when read. */
  @Override
  protected void cachePeeledState(Ref oldLeaf, Ref newLeaf) {
    // A peeled ref is not written back; the rows hold object ids only.
  }

  @Override
  public ReflogReader getReflogReader(Ref ref) {
    return NO_REFLOG;
  }

  private static final ReflogReader NO_REFLOG =
      new ReflogReader() {
        @Override
        public ReflogEntry getLastEntry() {
          return null;
        }

        @Override
        public List<ReflogEntry> getReverseEntries() {
          return List.of();
        }

        @Override
        public ReflogEntry getReverseEntry(int number) {
          return null;
        }

        @Override
        public List<ReflogEntry> getReverseEntries(int max) {
          return List.of();
        }
      };
}
