package dev.gitopshq.activities.git;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Date;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.file.GC;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;
import org.eclipse.jgit.internal.storage.file.PackInserter;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hosted repositories as bare repositories in a directory, one per project under {@code
 * <root>/<orgId>/<projectId>.git} ({@code GITOPSHQ_GIT_STORAGE=file}). Replicas share them only
 * through a shared file system; refs move under Git's lock files, by compare-and-set.
 */
public final class FileRepoStore implements RepoStore {
  private static final Logger log = LoggerFactory.getLogger(FileRepoStore.class);

  /** Repack when more than this many packs older than {@link #PACK_EXPIRE} pile up. */
  static final int AUTO_PACK_LIMIT = 50;

  /** Repack when about this many loose objects pile up (JGit's {@code gc.auto}). */
  static final int AUTO_LOOSE_LIMIT = 6_700;

  /** Packs younger than this are never deleted: a reader may have just opened one. */
  static final Duration PACK_EXPIRE = Duration.ofHours(1);

  private final Path root;
  private final ConcurrentMap<Path, Repository> open = new ConcurrentHashMap<>();

  public FileRepoStore(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  @Override
  public String kind() {
    return "file";
  }

  public Path root() {
    return root;
  }

  /** Where a project's bare repository lives. */
  public Path dir(UUID orgId, UUID projectId) {
    return root.resolve(orgId.toString()).resolve(projectId + ".git");
  }

  @Override
  public boolean exists(UUID orgId, UUID projectId) {
    return Files.isRegularFile(dir(orgId, projectId).resolve("HEAD"));
  }

  @Override
  public synchronized void create(UUID orgId, UUID projectId, String mainBranch) {
    if (exists(orgId, projectId)) {
      return;
    }
    Path dir = dir(orgId, projectId);
    try {
      Files.createDirectories(dir.getParent());
      try (Repository r = new FileRepositoryBuilder().setGitDir(dir.toFile()).setBare().build()) {
        r.create(true);
        RefUpdate head = r.updateRef(Constants.HEAD);
        head.disableRefLog();
        head.link(Constants.R_HEADS + mainBranch);
        StoredConfig config = r.getConfig();
        // Keep a reflog of every branch move: who moved what, when.
        config.setBoolean("core", null, "logAllRefUpdates", true);
        config.save();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the repository at " + dir, e);
    }
  }

  @Override
  public Repository open(UUID orgId, UUID projectId) {
    Path dir = dir(orgId, projectId);
    Repository cached = open.get(dir);
    if (cached != null) {
      return cached;
    }
    if (!exists(orgId, projectId)) {
      throw new NoSuchRepositoryException("project " + projectId + " has no repository");
    }
    return open.computeIfAbsent(
        dir,
        d -> {
          try {
            return new FileRepositoryBuilder()
                .setGitDir(d.toFile())
                .setBare()
                .setMustExist(true)
                .build();
          } catch (IOException e) {
            throw new UncheckedIOException("cannot open the repository at " + d, e);
          }
        });
  }

  @Override
  public void delete(UUID orgId, UUID projectId) {
    Path dir = dir(orgId, projectId);
    Repository r = open.remove(dir);
    if (r != null) {
      r.close();
    }
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the repository at " + dir, e);
    }
  }

  /** One pack file when flushed (loose objects where there is no pack directory). */
  @Override
  public ObjectInserter bulkInserter(Repository repo) {
    if (repo.getObjectDatabase() instanceof ObjectDirectory objects) {
      PackInserter pack = objects.newPackInserter();
      pack.checkExisting(true);
      return pack;
    }
    return repo.newObjectInserter();
  }

  /**
   * JGit's {@code gc --auto}: repacks when more than {@link #AUTO_PACK_LIMIT} packs older than an
   * hour or about {@link #AUTO_LOOSE_LIMIT} loose objects piled up. Unreachable objects younger
   * than two weeks are kept, so trees written by a generation that has not committed yet survive.
   */
  @Override
  public void maintain(UUID orgId, UUID projectId) {
    Repository repo = open(orgId, projectId);
    if (!(repo instanceof FileRepository file)) {
      return;
    }
    synchronized (repo) {
      try {
        // Only packs older than an hour count: younger ones are never deleted (a reader may have
        // just opened one), so repacking for them would only add another pack.
        long cutoff = System.currentTimeMillis() - PACK_EXPIRE.toMillis();
        long oldPacks =
            file.getObjectDatabase().getPacks().stream()
                .filter(p -> p.getPackFile().lastModified() < cutoff)
                .count();
        if (oldPacks <= AUTO_PACK_LIMIT
            && new GC(file).getStatistics().numberOfLooseObjects <= AUTO_LOOSE_LIMIT) {
          return;
        }
        GC gc = new GC(file);
        // Unreachable objects younger than this stay: trees of a generation still rendering.
        gc.setExpire(Date.from(Instant.now().minus(Duration.ofDays(14))));
        gc.gc().get();
      } catch (IOException | ParseException | ExecutionException | GitAPIException e) {
        log.warn("repacking the repository of project {} failed: {}", projectId, e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public void close() {
    open.values().forEach(Repository::close);
    open.clear();
  }
}
