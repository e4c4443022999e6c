package dev.gitopshq.hub.git.migration;

import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.pg.PostgresRepoStore;
import dev.gitopshq.activities.git.pg.RepoImport;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;

/**
 * Copies every project's file repository ({@code <root>/<org id>/<project id>.git}) into the
 * PostgreSQL storage, one repository at a time, and verifies each copy. Idempotent and resumable: a
 * repository PostgreSQL already holds with the same refs, HEAD and objects is left as it is ("up to
 * date"); one it holds otherwise (the hub has written there since, or another copy) is refused
 * unless {@code replace} is set, then rewritten. Each repository is written as a {@link RepoImport}
 * (objects first, then every ref in one transaction), so a run that stops half-way leaves each
 * repository absent or as it was, never half-written, and the next run carries on. Prints one line
 * per repository and a summary.
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

  /** What happened to one repository; its name, in lower case, starts the repository's line. */
  public enum Outcome {
    /** Not in PostgreSQL before (or only an interrupted, invisible import): copied and verified. */
    MIGRATED,
    /** PostgreSQL already held the same refs, HEAD and objects: nothing written. */
    UP_TO_DATE,
    /** PostgreSQL held other refs or lacked objects; {@code --replace} rewrote it from the file. */
    REPLACED,
    /**
     * PostgreSQL holds the repository otherwise and {@code --replace} was not given: left alone.
     */
    REFUSED,
    /** The copy or its verification failed; what readers see is as it was before. */
    FAILED,
    /** The project has no file repository: nothing to copy. */
    NO_FILE_REPOSITORY,
    /** Dry run: would be migrated. */
    WOULD_MIGRATE,
    /** Dry run with {@code --replace}: would be replaced. */
    WOULD_REPLACE
  }

  /** The counts the summary line prints; {@link #ok()} when nothing was refused or failed. */
  public record Summary(
      int projects,
      int migrated,
      int upToDate,
      int replaced,
      int refused,
      int failed,
      int noFileRepository,
      int wouldMigrate,
      int wouldReplace,
      List<String> orphans,
      long objects,
      long packBytes) {
    public boolean ok() {
      return refused == 0 && failed == 0;
    }
  }

  private final Path fileRoot;
  private final PostgresRepoStore target;
  private final PrintStream out;
  private final boolean dryRun;
  private final boolean replace;

  /**
   * @param fileRoot the file storage's root (GITOPSHQ_GIT_ROOT)
   * @param target where the repositories go
   * @param out where the lines are printed
   * @param dryRun compare and print only: nothing is written
   * @param replace rewrite a repository PostgreSQL holds otherwise instead of refusing it
   */
  public GitStorageMigration(
      Path fileRoot, PostgresRepoStore target, PrintStream out, boolean dryRun, boolean replace) {
    this.fileRoot = fileRoot.toAbsolutePath().normalize();
    this.target = target;
    this.out = out;
    this.dryRun = dryRun;
    this.replace = replace;
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
        "migrate-git-storage: %d projects, file repositories under %s -> %s storage%s%s%n",
        projects.size(),
        fileRoot,
        target.kind(),
        replace ? " (--replace: repositories that differ are rewritten)" : "",
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
            counts[Outcome.MIGRATED.ordinal()],
            counts[Outcome.UP_TO_DATE.ordinal()],
            counts[Outcome.REPLACED.ordinal()],
            counts[Outcome.REFUSED.ordinal()],
            counts[Outcome.FAILED.ordinal()],
            counts[Outcome.NO_FILE_REPOSITORY.ordinal()],
            counts[Outcome.WOULD_MIGRATE.ordinal()],
            counts[Outcome.WOULD_REPLACE.ordinal()],
            orphans,
            objects,
            bytes);
    out.printf(
        Locale.ROOT,
        "summary: %d projects: %d migrated, %d up to date, %d replaced, %d refused, %d failed,"
            + " %d without a file repository%s, %d orphan repositories; %d objects, %.1f MiB of"
            + " packs in %.1f s: %s%n",
        s.projects(),
        s.migrated(),
        s.upToDate(),
        s.replaced(),
        s.refused(),
        s.failed(),
        s.noFileRepository(),
        dryRun ? ", " + s.wouldMigrate() + " to migrate, " + s.wouldReplace() + " to replace" : "",
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
      boolean rewrite = false;
      if (target.exists(p.orgId(), p.projectId())) {
        Repository existing = target.open(p.orgId(), p.projectId());
        RepoCopy.RefState have = RepoCopy.refs(existing);
        Optional<String> difference = difference(existing, have, want, counted);
        if (difference.isEmpty()) {
          return new Result(
              Outcome.UP_TO_DATE,
              want.refs().size() + " refs, " + counted[0] + " objects present and equal",
              0,
              0);
        }
        // A repository created empty (no ref) holds nothing to lose: it is filled, as if new.
        if (!replace && !have.isEmpty()) {
          return new Result(
              Outcome.REFUSED,
              "the "
                  + target.kind()
                  + " storage already holds this repository otherwise ("
                  + difference.get()
                  + "); left as it is. Run again with --replace to overwrite it with the file"
                  + " repository",
              0,
              0);
        }
        rewrite = !have.isEmpty();
      }
      if (dryRun) {
        return new Result(
            rewrite ? Outcome.WOULD_REPLACE : Outcome.WOULD_MIGRATE,
            want.refs().size() + " refs",
            0,
            0);
      }
      RepoCopy.Copied copied;
      try (RepoImport imp = target.beginImport(p.orgId(), p.projectId())) {
        copied = RepoCopy.copyObjects(source, want, imp.repository(), temp);
        // Nothing is published unless every object the refs name is stored.
        Optional<String> missing = RepoCopy.missingObject(imp.repository(), want, counted);
        if (missing.isPresent()) {
          return new Result(
              Outcome.FAILED,
              missing.get() + "; no ref was written",
              copied.objects(),
              copied.packBytes());
        }
        imp.publish(want.refs(), headOf(want));
      }
      Optional<String> problem =
          RepoCopy.verify(
              target.open(p.orgId(), p.projectId()),
              new RepoCopy.RefState(want.refs(), headOf(want)),
              counted);
      if (problem.isPresent()) {
        return new Result(Outcome.FAILED, problem.get(), copied.objects(), copied.packBytes());
      }
      return new Result(
          rewrite ? Outcome.REPLACED : Outcome.MIGRATED,
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

  /**
   * How the repository PostgreSQL holds differs from the file repository's {@code want}: refs,
   * HEAD, or an object reachable from the refs; empty when it is equal ({@code counted[0]} is then
   * the number of objects).
   */
  private Optional<String> difference(
      Repository existing, RepoCopy.RefState have, RepoCopy.RefState want, long[] counted)
      throws IOException {
    List<String> diff = want.differences(have, MAX_DIFFERENCES, "file", target.kind());
    if (!diff.isEmpty()) {
      return Optional.of(String.join("; ", diff));
    }
    if (!Objects.equals(headOf(want), have.head())) {
      return Optional.of("HEAD: file " + headOf(want) + ", " + target.kind() + " " + have.head());
    }
    return RepoCopy.missingObject(existing, want, counted);
  }

  /** Where a copy's HEAD points: the source's branch, or {@code main} when it points at none. */
  private static String headOf(RepoCopy.RefState state) {
    return state.head() == null || state.head().equals(Constants.HEAD)
        ? Constants.R_HEADS + ProjectRepos.MAIN
        : state.head();
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
