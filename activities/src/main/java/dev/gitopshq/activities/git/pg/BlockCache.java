package dev.gitopshq.activities.git.pg;

import org.eclipse.jgit.internal.storage.dfs.DfsBlockCache;
import org.eclipse.jgit.internal.storage.dfs.DfsBlockCacheConfig;

/**
 * JGit's DFS block cache, which holds what was read of the packs (one per JVM, shared by every
 * repository): its size is GITOPSHQ_GIT_BLOCK_CACHE_MB. Its blocks are the chunk rows, so each
 * block it misses is one query.
 */
public final class BlockCache {
  /** JGit's own default, and the hub's when GITOPSHQ_GIT_BLOCK_CACHE_MB is not set. */
  public static final int DEFAULT_MB = 32;

  /** The limit the cache was last configured with; 0 before (JGit's default is then in use). */
  private static long configuredBytes;

  private BlockCache() {}

  /**
   * Sizes the cache to {@code mb} MiB. A new size replaces the cache (empty); the size it has
   * already keeps it, so every store of one JVM may call this with the same setting.
   */
  public static synchronized void configure(int mb) {
    if (mb <= 0) {
      throw new IllegalArgumentException("the block cache must hold at least 1 MiB, not " + mb);
    }
    long bytes = mb * (long) DfsBlockCacheConfig.MB;
    if (bytes == configuredBytes) {
      return;
    }
    DfsBlockCache.reconfigure(
        new DfsBlockCacheConfig().setBlockLimit(bytes).setBlockSize(PackFileKey.CHUNK));
    configuredBytes = bytes;
  }

  /** The limit the cache has, in bytes: what {@link #configure} set, or JGit's default. */
  public static synchronized long limitBytes() {
    return configuredBytes != 0 ? configuredBytes : DEFAULT_MB * (long) DfsBlockCacheConfig.MB;
  }
}
