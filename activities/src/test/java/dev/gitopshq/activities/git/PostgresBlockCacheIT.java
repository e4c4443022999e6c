package dev.gitopshq.activities.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.activities.git.pg.BlockCache;
import dev.gitopshq.activities.git.pg.PostgresRepoStore;
import dev.gitopshq.activities.store.TestSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SortedMap;
import java.util.UUID;
import java.util.stream.LongStream;
import org.eclipse.jgit.internal.storage.dfs.DfsBlockCache;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * GITOPSHQ_GIT_BLOCK_CACHE_MB at work ({@link
 * PostgresRepoStore#PostgresRepoStore(javax.sql.DataSource, int)}): reading a repository larger
 * than the cache keeps the cache within its size, and a larger setting keeps the whole repository
 * in memory.
 */
class PostgresBlockCacheIT {
  static final int MIB = 1024 * 1024;
  static final Ident AUTHOR = new Ident("Ada", "ada@example.com");

  static TestSchema db;
  static final UUID org = UUID.randomUUID();
  static final UUID project = UUID.randomUUID();

  @BeforeAll
  static void schema() throws Exception {
    db = TestSchema.create("git_block_cache_it");
  }

  @AfterAll
  static void drop() {
    // Other tests of this JVM expect JGit's default.
    BlockCache.configure(BlockCache.DEFAULT_MB);
    db.close();
  }

  static long cachedBytes() {
    return LongStream.of(DfsBlockCache.getInstance().getCurrentSize()).sum();
  }

  /** Reads every file of {@code head}, through a store whose cache is {@code mb} MiB. */
  static SortedMap<String, byte[]> readAll(int mb, ObjectId head) {
    try (ProjectRepos repos = new ProjectRepos(new PostgresRepoStore(db.dataSource(), mb))) {
      return repos.readFiles(org, project, head, "rendered");
    }
  }

  @Test
  void theCacheHoldsNoMoreThanItsSizeAndALargerOneKeepsTheWholeRepository() {
    // 10 MiB of files that do not compress: a pack of about 10 MiB.
    ObjectId head;
    Random random = new Random(42);
    try (ProjectRepos repos = new ProjectRepos(new PostgresRepoStore(db.dataSource()))) {
      repos.create(org, project);
      List<TreeEdit> edits = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        byte[] data = new byte[256 * 1024];
        random.nextBytes(data);
        edits.add(TreeEdit.file("rendered/f" + i + ".bin", data));
      }
      head = repos.commit(org, project, "main", null, edits, AUTHOR, "large").commit();
    }

    assertThat(readAll(4, head)).hasSize(40);
    assertThat(BlockCache.limitBytes()).isEqualTo(4L * MIB);
    assertThat(cachedBytes()).isPositive().isLessThanOrEqualTo(4L * MIB);

    assertThat(readAll(64, head)).hasSize(40);
    assertThat(BlockCache.limitBytes()).isEqualTo(64L * MIB);
    assertThat(cachedBytes()).isGreaterThan(10L * MIB).isLessThanOrEqualTo(64L * MIB);

    // The same size again keeps what the cache holds (a new store per test context must not empty
    // it).
    long before = cachedBytes();
    new PostgresRepoStore(db.dataSource(), 64).close();
    assertThat(cachedBytes()).isEqualTo(before);
  }

  @Test
  void aCacheOfNothingIsRefused() {
    assertThatThrownBy(() -> BlockCache.configure(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1 MiB");
  }
}
