package dev.gitopshq.activities.git.pg;

import java.io.IOException;
import java.util.UUID;
import org.eclipse.jgit.internal.storage.dfs.DfsObjDatabase;
import org.eclipse.jgit.internal.storage.dfs.DfsRepository;
import org.eclipse.jgit.internal.storage.dfs.DfsRepositoryBuilder;
import org.eclipse.jgit.internal.storage.dfs.DfsRepositoryDescription;
import org.eclipse.jgit.lib.RefDatabase;

/** One project's repository in PostgreSQL: JGit's DFS repository over its rows. */
final class PgRepository extends DfsRepository {
  static final class Builder extends DfsRepositoryBuilder<Builder, PgRepository> {
    private final Sql sql;
    private final UUID orgId;
    private final UUID projectId;

    Builder(Sql sql, UUID orgId, UUID projectId) {
      this.sql = sql;
      this.orgId = orgId;
      this.projectId = projectId;
      // The name keys JGit's block cache too (with each pack's unique name).
      setRepositoryDescription(new DfsRepositoryDescription(orgId + "/" + projectId));
    }

    @Override
    public PgRepository build() throws IOException {
      return new PgRepository(this);
    }
  }

  private final PgObjDatabase objects;
  private final PgRefDatabase refs;

  private PgRepository(Builder b) {
    super(b);
    objects = new PgObjDatabase(this, b.sql, b.orgId, b.projectId);
    refs = new PgRefDatabase(this, b.sql, b.orgId, b.projectId, objects);
  }

  @Override
  public DfsObjDatabase getObjectDatabase() {
    return objects;
  }

  PgObjDatabase objects() {
    return objects;
  }

  @Override
  public RefDatabase getRefDatabase() {
    return refs;
  }
}
