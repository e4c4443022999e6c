package dev.gitopshq.hub.git.migration;

import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.RepoStore;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;

/**
 * Copies every project's file repository ({@code <root>/<org id>/<project id>.git}) into another
 * storage, one repository at a time, and verifies each copy. Idempotent: a repository the target
 * already holds with the same refs is verified and left as it is; one the target holds with other
 * refs (the hub has written there since, or another copy) is refused, never overwritten. Prints one
 * line per repository and a summary.
 */
public final class GitStorageMigration {
  /** The longest line of ref differences shown for a refused repository. */
  private static final int MAX_DIFFERENCES = 5;

  /** A project the database knows, with the names an operator recognizes. */
  public record Project(UUID orgId, String orgSlug, UUID projectId, String name) {
    String label() {
      return orgSlug + "/" + name + " (" + orgId + "/" + projectId + ")";
    }
  }

  /** What happened to one repository. */
  public enum Outcome {
    /** Copied and verified. */
    COPIED,
    /** The target already held an equal repository; verified, nothing written. */
    UNCHANGED,
    /** The project has no file repository: nothing to copy. */
    NO_FILE_REPOSITORY,
    /** The target holds the repository with other refs: left alone. */
    REFUSED,
    /** The copy or its verification failed. */
    FAILED,
    /** Dry run: would be copied. */
    WOULD_COPY
  }

  /** The counts the summary line prints; {@link #ok()} when nothing was refused or failed. */
  public record Summary(
      int projects,
      int copied,
      int unchanged,
      int noFileRepository,
      int refused,
      int failed,
      int wouldCopy,
      List<String> orphans,
      long objects,
      long packBytes) {
    public boolean ok() {
      return refused == 0 && failed == 0;
    }
  }

  private final Path fileRoot;
  private final RepoStore target;
  private final PrintStream out;
  private final boolean dryRun;

  /**
   * @param fileRoot the file storage's root (GITOPSHQ_GIT_ROOT)
   * @param target where the repositories go (the PostgreSQL store)
   * @param out where the lines are printed
   * @param dryRun compare and print only: nothing is written
   */
  public GitStorageMigration(Path fileRoot, RepoStore target, PrintStream out, boolean dryRun) {
    this.fileRoot = fileRoot.toAbsolutePath().normalize();
    this.target = target;
    this.out = out;
    this.dryRun = dryRun;
  }

  /** Where the file storage keeps a project's bare repository. */
  public Path fileDir(UUID orgId, UUID projectId) {
    return fileRoot.resolve(orgId.toString()).resolve(projectId + ".git");
  }

  /** Migrates {@code projects} in the order given, then lists file repositories of no project. */
  public Summary run(List<Project> projects) throws IOException {
    long started = System.nanoTime();
    out.printf(
        Locale.ROOT,
        "migrate-git-storage: %d projects, file repositories under %s -> %s storage%s%n",
        projects.size(),
        fileRoot,
        target.kind(),
        dryRun ? " (dry run: nothing is written)" : "");
    int[] counts = new int[Outcome.values().length];
    long objects = 0;
    long bytes = 0;
    Path temp = Files.createTempDirectory("gitopshq-migrate-git-storage");
    try {
      for (Project p : projects) {
        long t0 = System.nanoTime();
        Result r = migrate(p, temp);
        counts[r.outcome.ordinal()]++;
        objects += r.objects;
        bytes += r.packBytes;
        out.printf(
            Locale.ROOT,
            "%-18s %s: %s (%.1f s)%n",
            r.outcome.name().toLowerCase(Locale.ROOT).replace('_', ' '),
            p.label(),
            r.detail,
            (System.nanoTime() - t0) / 1e9);
        out.flush();
      }
    } finally {
      Files.deleteIfExists(temp);
    }
    List<String> orphans = orphans(projects);
    for (String o : orphans) {
      out.printf(
          Locale.ROOT,
          "%-18s %s: no project in the database has this repository; not copied%n",
          "orphan",
          o);
    }
    Summary s =
        new Summary(
            projects.size(),
            counts[Outcome.COPIED.ordinal()],
            counts[Outcome.UNCHANGED.ordinal()],
            counts[Outcome.NO_FILE_REPOSITORY.ordinal()],
            counts[Outcome.REFUSED.ordinal()],
            counts[Outcome.FAILED.ordinal()],
            counts[Outcome.WOULD_COPY.ordinal()],
            orphans,
            objects,
            bytes);
    out.printf(
        Locale.ROOT,
        "summary: %d projects: %d copied, %d unchanged, %d without a file repository, %d refused,"
            + " %d failed%s, %d orphan repositories; %d objects, %.1f MiB of packs in %.1f s: %s%n",
        s.projects(),
        s.copied(),
        s.unchanged(),
        s.noFileRepository(),
        s.refused(),
        s.failed(),
        dryRun ? ", " + s.wouldCopy() + " to copy" : "",
        orphans.size(),
        objects,
        bytes / (1024.0 * 1024.0),
        (System.nanoTime() - started) / 1e9,
        !s.ok()
            ? "NOT DONE (see the refused and failed lines; nothing of theirs was overwritten)"
            : dryRun ? "dry run" : "every repository is in the " + target.kind() + " storage");
    out.flush();
    return s;
  }

  private record Result(Outcome outcome, String detail, long objects, long packBytes) {}

  private Result migrate(Project p, Path temp) {
    Path dir = fileDir(p.orgId(), p.projectId());
    if (!Files.isRegularFile(dir.resolve("HEAD"))) {
      return new Result(Outcome.NO_FILE_REPOSITORY, "no file repository at " + dir, 0, 0);
    }
    try (Repository source =
        new FileRepositoryBuilder().setGitDir(dir.toFile()).setBare().setMustExist(true).build()) {
      RepoCopy.RefState want = RepoCopy.refs(source);
      long[] counted = new long[1];
      if (target.exists(p.orgId(), p.projectId())) {
        Repository existing = target.open(p.orgId(), p.projectId());
        RepoCopy.RefState have = RepoCopy.refs(existing);
        List<String> diff = want.differences(have, MAX_DIFFERENCES, "file", target.kind());
        if (!diff.isEmpty() && !have.isEmpty()) {
          return new Result(
              Outcome.REFUSED,
              "the "
                  + target.kind()
                  + " storage already holds this repository with other refs ("
                  + String.join("; ", diff)
                  + "); left as it is",
              0,
              0);
        }
        if (diff.isEmpty()) {
          Optional<String> problem = RepoCopy.verify(existing, want, counted);
          if (problem.isPresent()) {
            return new Result(Outcome.FAILED, problem.get(), 0, 0);
          }
          return new Result(
              Outcome.UNCHANGED,
              want.refs().size() + " refs, " + counted[0] + " objects present and equal",
              0,
              0);
        }
      }
      if (dryRun) {
        return new Result(Outcome.WOULD_COPY, want.refs().size() + " refs", 0, 0);
      }
      target.create(p.orgId(), p.projectId(), ProjectRepos.MAIN);
      Repository copy = target.open(p.orgId(), p.projectId());
      RepoCopy.Copied copied = RepoCopy.copy(source, copy, temp);
      Optional<String> problem = RepoCopy.verify(copy, want, counted);
      if (problem.isPresent()) {
        return new Result(Outcome.FAILED, problem.get(), copied.objects(), copied.packBytes());
      }
      return new Result(
          Outcome.COPIED,
          String.format(
              Locale.ROOT,
              "%d refs, %d objects (%.1f KiB pack), verified",
              want.refs().size(),
              counted[0],
              copied.packBytes() / 1024.0),
          copied.objects(),
          copied.packBytes());
    } catch (IOException | RuntimeException e) {
      return new Result(Outcome.FAILED, e.getClass().getSimpleName() + ": " + e.getMessage(), 0, 0);
    }
  }

  /** {@code <org id>/<project id>.git} directories under the root that no listed project owns. */
  private List<String> orphans(List<Project> projects) throws IOException {
    Set<Path> known = new HashSet<>();
    for (Project p : projects) {
      known.add(fileDir(p.orgId(), p.projectId()));
    }
    List<String> out = new ArrayList<>();
    if (!Files.isDirectory(fileRoot)) {
      return out;
    }
    try (Stream<Path> orgs = Files.list(fileRoot)) {
      for (Path org : orgs.filter(Files::isDirectory).sorted().toList()) {
        try (Stream<Path> repos = Files.list(org)) {
          for (Path repo : repos.sorted().toList()) {
            if (repo.getFileName().toString().endsWith(".git")
                && Files.isRegularFile(repo.resolve("HEAD"))
                && !known.contains(repo)) {
              out.add(fileRoot.relativize(repo).toString());
            }
          }
        }
      }
    }
    return out;
  }
}
