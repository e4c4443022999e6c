package dev.gitopshq.hub.config;

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
 */
@ConfigurationProperties("gitopshq.git")
public record GitProperties(String storage, Path root, String publicUrl, Path renderDir) {
  /** The storage names GITOPSHQ_GIT_STORAGE accepts. */
  public static final List<String> STORAGES = List.of("file", "postgres");

  public GitProperties {
    storage = storage == null || storage.isBlank() ? "file" : storage.strip();
    if (!STORAGES.contains(storage)) {
      throw new IllegalArgumentException(
          "GITOPSHQ_GIT_STORAGE must be one of " + STORAGES + ", not " + storage);
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
