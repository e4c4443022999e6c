package dev.gitopshq.hub.config;

import dev.gitopshq.activities.git.pg.BlockCache;
import java.nio.file.Path;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The hosted repositories.
 *
 * @param storage where the repositories are kept (GITOPSHQ_GIT_STORAGE): {@code file} (default,
 *     bare repositories under {@code root}; replicas need it on a shared file system) or {@code
 *     postgres} (packs and refs in the hub's database; replicas need nothing shared but it)
 * @param root where the bare repositories live with the file storage (GITOPSHQ_GIT_ROOT, default
 *     {@code <data dir>/repos}); replicas share it
 * @param publicUrl the hub's base URL as Argo CD, Flux and people reach it (GITOPSHQ_PUBLIC_URL),
 *     used in clone URLs: {@code <publicUrl>/git/<org>/<project>.git}
 * @param renderDir where renders get their fresh working directories (GITOPSHQ_RENDER_DIR, default
 *     {@code <data dir>/render})
 * @param blockCacheMb the size of JGit's block cache in MiB with the postgres storage
 *     (GITOPSHQ_GIT_BLOCK_CACHE_MB, default {@value BlockCache#DEFAULT_MB}): what was read of the
 *     packs, shared by all repositories, on the JVM's heap; each block it misses is one query
 */
@ConfigurationProperties("gitopshq.git")
public record GitProperties(
    String storage, Path root, String publicUrl, Path renderDir, Integer blockCacheMb) {
  /** The storage names GITOPSHQ_GIT_STORAGE accepts. */
  public static final List<String> STORAGES = List.of("file", "postgres");

  /** The smallest block cache GITOPSHQ_GIT_BLOCK_CACHE_MB accepts (64 blocks of 64 KiB). */
  public static final int MIN_BLOCK_CACHE_MB = 4;

  public GitProperties {
    storage = storage == null || storage.isBlank() ? "file" : storage.strip();
    if (!STORAGES.contains(storage)) {
      throw new IllegalArgumentException(
          "GITOPSHQ_GIT_STORAGE must be one of " + STORAGES + ", not " + storage);
    }
    blockCacheMb = blockCacheMb == null ? BlockCache.DEFAULT_MB : blockCacheMb;
    checkBlockCache(blockCacheMb, storage, Runtime.getRuntime().maxMemory());
  }

  /**
   * Refuses a block cache below {@value #MIN_BLOCK_CACHE_MB} MiB, or, with the postgres storage
   * (the only one that uses it), above half the JVM's heap ({@code maxHeapBytes}): the cache lives
   * on the heap, and the rest of the hub needs the other half.
   */
  static void checkBlockCache(int mb, String storage, long maxHeapBytes) {
    if (mb < MIN_BLOCK_CACHE_MB) {
      throw new IllegalArgumentException(
          "GITOPSHQ_GIT_BLOCK_CACHE_MB must be at least " + MIN_BLOCK_CACHE_MB + ", not " + mb);
    }
    long maxMb = maxHeapBytes / (2 * 1024 * 1024);
    if (storage.equals("postgres") && mb > maxMb) {
      throw new IllegalArgumentException(
          "GITOPSHQ_GIT_BLOCK_CACHE_MB="
              + mb
              + " is more than half the JVM's heap ("
              + maxHeapBytes / (1024 * 1024)
              + " MiB): lower it to "
              + maxMb
              + " or less, or give the JVM more memory (-Xmx, the container's memory limit)");
    }
  }

  /** The public URL without a trailing slash, to append paths to. */
  public String baseUrl() {
    return publicUrl.endsWith("/") ? publicUrl.substring(0, publicUrl.length() - 1) : publicUrl;
  }

  /** The clone URL of a project's repository. */
  public String cloneUrl(String orgSlug, String project) {
    return baseUrl() + "/git/" + orgSlug + "/" + project + ".git";
  }
}
