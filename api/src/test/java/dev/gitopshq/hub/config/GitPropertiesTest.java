package dev.gitopshq.hub.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** GITOPSHQ_GIT_BLOCK_CACHE_MB: its default, and the values that stop the hub at start. */
class GitPropertiesTest {
  static final long GIB = 1024L * 1024 * 1024;

  static GitProperties props(String storage, Integer blockCacheMb) {
    return new GitProperties(
        storage, Path.of("repos"), "http://hub", Path.of("render"), blockCacheMb);
  }

  @Test
  void theBlockCacheIsJGitsDefaultUnlessSet() {
    assertThat(props("postgres", null).blockCacheMb()).isEqualTo(32);
    assertThat(props("postgres", 16).blockCacheMb()).isEqualTo(16);
  }

  @Test
  void aBlockCacheBelowFourMibIsRefusedNamingTheVariable() {
    assertThatThrownBy(() -> props("postgres", 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GITOPSHQ_GIT_BLOCK_CACHE_MB must be at least 4, not 2");
    assertThatThrownBy(() -> props("file", 0))
        .hasMessageContaining("GITOPSHQ_GIT_BLOCK_CACHE_MB must be at least 4");
  }

  @Test
  void aBlockCacheOverHalfTheHeapIsRefusedWithPostgresOnly() {
    GitProperties.checkBlockCache(512, "postgres", GIB);
    assertThatThrownBy(() -> GitProperties.checkBlockCache(513, "postgres", GIB))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("GITOPSHQ_GIT_BLOCK_CACHE_MB=513 is more than half the JVM's heap")
        .hasMessageContaining("(1024 MiB)")
        .hasMessageContaining("lower it to 512 or less");
    // The file storage never allocates it.
    GitProperties.checkBlockCache(4096, "file", GIB);
  }
}
