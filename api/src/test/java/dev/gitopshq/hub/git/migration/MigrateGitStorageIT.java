package dev.gitopshq.hub.git.migration;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.gitopshq.activities.git.CommitResult;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import dev.gitopshq.activities.git.pg.PostgresRepoStore;
import dev.gitopshq.hub.HubTestSupport;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.UUID;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The hub jar's {@code migrate-git-storage} mode ({@link MigrateGitStorageCommand}, the whole
 * command with its own Spring context on the real test database) on file repositories with history
 * and deploy branches: afterwards a {@link ProjectRepos} on the PostgreSQL storage serves the same
 * heads, trees and history; a second run finds everything up to date and writes nothing; a
 * repository the PostgreSQL storage holds with other commits is refused, and replaced with {@code
 * --replace}; a run that fails while writing a repository's refs (a database error, as a kill would
 * leave it) leaves that repository absent or as it was, and the next run resumes.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MigrateGitStorageIT {
  static final Ident AUTHOR = new Ident("Ada", "ada@example.com");

  static Path root;
  static ProjectRepos files;
  static HikariDataSource db;
  static ProjectRepos postgres;
  static UUID org;
  static String slug;

  /** Projects: with history and two deploy branches, with one commit, empty, and none on disk. */
  static UUID shop;

  static UUID web;
  static UUID empty;
  static UUID missing;
  static Path orphan;

  @BeforeAll
  static void setUp() throws Exception {
    HubTestSupport.wipeDatabaseOnce();
    root = Files.createTempDirectory("gitopshq-migrate-it");
    // The first run creates the schema (the hub's Flyway migrations) with no project to copy.
    Run first = migrate("--dry-run");
    assertThat(first.code()).as(first.out()).isEqualTo(MigrateGitStorageCommand.OK);

    db = new HikariDataSource();
    db.setJdbcUrl(HubTestSupport.DB_URL);
    db.setUsername(HubTestSupport.DB_USER);
    db.setPassword(HubTestSupport.DB_PASSWORD);
    db.setMaximumPoolSize(4);
    postgres = new ProjectRepos(new PostgresRepoStore(db));
    files = new ProjectRepos(root);

    org = UUID.randomUUID();
    slug = "migrate-" + org.toString().substring(0, 8);
    HubTestSupport.exec(
        "insert into organizations (id, slug, name, created_at) values (?, ?, 'Migrate', now())",
        org,
        slug);
    shop = project("shop");
    web = project("web");
    empty = project("empty");
    missing = project("missing");

    files.create(org, shop);
    CommitResult c1 =
        commit(
            shop,
            "main",
            Map.of("config/project.yaml", "name: shop\n", "rendered/a.yaml", "replicas: 1\n"));
    commit(shop, "deploy/staging", Map.of("rendered/a.yaml", "replicas: 1\n"));
    CommitResult c2 = commit(shop, "main", Map.of("rendered/a.yaml", "replicas: 2\n"));
    commit(shop, "deploy/staging", Map.of("rendered/a.yaml", "replicas: 2\n"));
    commit(shop, "deploy/production", Map.of("rendered/a.yaml", "replicas: 1\n"));
    commit(shop, "main", Map.of("rendered/b/c.yaml", "kind: Service\n"));
    assertThat(c1.commit()).isNotEqualTo(c2.commit());

    files.create(org, web);
    commit(web, "main", Map.of("config/project.yaml", "name: web\n"));

    files.create(org, empty);

    orphan = root.resolve(org.toString()).resolve(UUID.randomUUID() + ".git");
    try (ProjectRepos elsewhere = new ProjectRepos(root)) {
      // A repository of a project the database no longer has: reported, never copied.
      UUID gone = UUID.fromString(orphan.getFileName().toString().replace(".git", ""));
      elsewhere.create(org, gone);
    }
  }

  @AfterAll
  static void tearDown() {
    if (postgres != null) {
      postgres.close();
    }
    if (files != null) {
      files.close();
    }
    if (db != null) {
      db.close();
    }
  }

  static UUID project(String name) {
    UUID id = UUID.randomUUID();
    HubTestSupport.exec(
        "insert into projects (id, org_id, name, created_by, created_at, updated_at)"
            + " values (?, ?, ?, 'test', now(), now())",
        id,
        org,
        name);
    return id;
  }

  static CommitResult commit(UUID project, String branch, Map<String, String> put) {
    List<TreeEdit> edits = new ArrayList<>();
    put.forEach((path, text) -> edits.add(TreeEdit.file(path, text.getBytes(UTF_8))));
    return files.commit(org, project, branch, null, edits, AUTHOR, "change " + put.keySet());
  }

  record Run(int code, String out) {
    /** The line of the project named {@code name}. */
    String line(String name) {
      String label = slug + "/" + name + " (";
      return out.lines()
          .filter(l -> l.contains(label))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no line for " + name + " in:\n" + out));
    }
  }

  static Run migrate(String... extra) {
    List<String> args = new ArrayList<>(List.of(extra));
    args.add("--spring.datasource.url=" + HubTestSupport.DB_URL);
    args.add("--spring.datasource.username=" + HubTestSupport.DB_USER);
    args.add("--spring.datasource.password=" + HubTestSupport.DB_PASSWORD);
    args.add("--gitopshq.git.root=" + root);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (PrintStream ps = new PrintStream(out, true, UTF_8)) {
      int code = MigrateGitStorageCommand.run(args.toArray(String[]::new), ps, ps);
      // In the test's log, as an operator would read it.
      System.out.print(out.toString(UTF_8));
      return new Run(code, out.toString(UTF_8));
    }
  }

  static Map<String, ObjectId> refs(Repository repo) throws Exception {
    Map<String, ObjectId> out = new java.util.TreeMap<>();
    for (Ref r : repo.getRefDatabase().getRefsByPrefix(Constants.R_REFS)) {
      out.put(r.getName(), r.getObjectId());
    }
    return out;
  }

  static long packs(UUID project) throws Exception {
    try (Connection c = db.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "select count(*) from git_packs where org_id = ? and project_id = ?")) {
      ps.setObject(1, org);
      ps.setObject(2, project);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  static long currentPacks(UUID project) throws Exception {
    try (Connection c = db.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "select count(*) from git_packs where org_id = ? and project_id = ?"
                    + " and state = 'current'")) {
      ps.setObject(1, org);
      ps.setObject(2, project);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * Makes the database refuse to write the {@code main} branch of {@code projects}: the migration
   * fails in the middle of writing such a repository's refs, as a kill or a lost connection would
   * stop it.
   */
  static void failWritingMain(UUID... projects) throws Exception {
    List<String> quoted = new ArrayList<>();
    for (UUID p : projects) {
      quoted.add("'" + p + "'");
    }
    try (Connection c = db.getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "create or replace function migrate_it_fail_ref() returns trigger language plpgsql as $$"
              + " begin if new.project_id in ("
              + String.join(", ", quoted)
              + ") and new.name = 'refs/heads/main'"
              + " then raise exception 'simulated failure writing %', new.name; end if;"
              + " return new; end $$");
      st.execute(
          "create trigger migrate_it_fail_ref before insert on git_refs for each row"
              + " execute function migrate_it_fail_ref()");
    }
  }

  static void stopFailing() throws Exception {
    try (Connection c = db.getConnection();
        Statement st = c.createStatement()) {
      st.execute("drop trigger if exists migrate_it_fail_ref on git_refs");
      st.execute("drop function if exists migrate_it_fail_ref()");
    }
  }

  @Test
  @Order(1)
  void copiesEveryRepositoryThenFindsThemUpToDateAndRefusesOneThatMovedOn() throws Exception {
    Map<String, ObjectId> shopRefs = refs(files.open(org, shop));
    assertThat(shopRefs)
        .containsOnlyKeys(
            "refs/heads/main", "refs/heads/deploy/staging", "refs/heads/deploy/production");

    Run dry = migrate("--dry-run");
    assertThat(dry.code()).as(dry.out()).isEqualTo(MigrateGitStorageCommand.OK);
    assertThat(dry.line("shop")).startsWith("would migrate").contains("3 refs");
    assertThat(postgres.exists(org, shop)).as("a dry run writes nothing").isFalse();

    Run run = migrate();
    assertThat(run.code()).as(run.out()).isEqualTo(MigrateGitStorageCommand.OK);
    assertThat(run.line("shop")).startsWith("migrated").contains("3 refs").contains("verified");
    assertThat(run.line("web")).startsWith("migrated").contains("1 refs");
    assertThat(run.line("empty")).startsWith("migrated").contains("0 refs");
    assertThat(run.line("missing")).startsWith("no file repository");
    assertThat(run.out())
        .contains("orphan")
        .contains(root.relativize(orphan).toString())
        .contains("summary:")
        .contains("3 migrated, 0 up to date, 0 replaced, 0 refused, 0 failed");

    // The PostgreSQL storage now serves what the files served: refs, HEAD, trees, files, history.
    for (UUID p : List.of(shop, web, empty)) {
      Repository pg = postgres.open(org, p);
      assertThat(refs(pg)).isEqualTo(refs(files.open(org, p)));
      assertThat(pg.exactRef(Constants.HEAD).getTarget().getName()).isEqualTo("refs/heads/main");
    }
    for (String branch : List.of("main", "deploy/staging", "deploy/production")) {
      ObjectId head = files.head(org, shop, branch).orElseThrow();
      assertThat(postgres.head(org, shop, branch)).contains(head);
      SortedMap<String, ObjectId> fileTree = files.listFiles(org, shop, head, "");
      assertThat(postgres.listFiles(org, shop, head, "")).isEqualTo(fileTree);
      assertThat(new String(postgres.readFiles(org, shop, head, "rendered").get("a.yaml"), UTF_8))
          .isEqualTo(new String(files.readFiles(org, shop, head, "rendered").get("a.yaml"), UTF_8));
      assertThat(postgres.log(org, shop, branch, 50)).isEqualTo(files.log(org, shop, branch, 50));
    }
    assertThat(postgres.log(org, shop, "main", 50)).hasSize(3);
    assertThat(postgres.exists(org, missing)).isFalse();

    // A second run: every repository is already there; nothing is written.
    long shopPacks = packs(shop);
    Run again = migrate();
    assertThat(again.code()).as(again.out()).isEqualTo(MigrateGitStorageCommand.OK);
    assertThat(again.line("shop")).startsWith("up to date").contains("3 refs");
    assertThat(again.line("web")).startsWith("up to date");
    assertThat(again.line("empty")).startsWith("up to date");
    assertThat(again.out()).contains("0 migrated, 3 up to date, 0 replaced, 0 refused, 0 failed");
    assertThat(packs(shop)).isEqualTo(shopPacks);

    // The hub commits on PostgreSQL; the directory is older now. The next run refuses that
    // repository, names the ref, and leaves PostgreSQL's commit where it is.
    CommitResult newer =
        postgres.commit(
            org,
            web,
            "main",
            null,
            List.of(TreeEdit.file("config/project.yaml", "name: web2\n".getBytes(UTF_8))),
            AUTHOR,
            "rename");
    Run refused = migrate();
    assertThat(refused.code()).as(refused.out()).isEqualTo(MigrateGitStorageCommand.NOT_DONE);
    assertThat(refused.line("web"))
        .startsWith("refused")
        .contains("refs/heads/main")
        .contains(newer.commit().abbreviate(10).name())
        .contains("--replace");
    assertThat(refused.line("shop")).startsWith("up to date");
    assertThat(refused.out()).contains("1 refused").contains("NOT DONE");
    assertThat(postgres.head(org, web, "main")).contains(newer.commit());
  }

  @Test
  @Order(2)
  void replaceRewritesARepositoryAtOnceAndAnInterruptedRunLeavesItAsItWasThenResumes()
      throws Exception {
    // Where the first test left it: PostgreSQL's web has a commit the file repository lacks.
    ObjectId pgWeb = postgres.head(org, web, "main").orElseThrow();
    ObjectId fileWeb = files.head(org, web, "main").orElseThrow();
    assertThat(pgWeb).isNotEqualTo(fileWeb);

    Run dry = migrate("--dry-run", "--replace");
    assertThat(dry.code()).as(dry.out()).isEqualTo(MigrateGitStorageCommand.OK);
    assertThat(dry.line("web")).startsWith("would replace");
    assertThat(postgres.head(org, web, "main")).contains(pgWeb);

    // A repository new to PostgreSQL, with two branches, whose refs fail half-way: the branch
    // written before the failure must not be visible, nor the repository at all.
    UUID late = project("late");
    files.create(org, late);
    commit(late, "main", Map.of("config/project.yaml", "name: late\n"));
    commit(late, "deploy/staging", Map.of("rendered/a.yaml", "replicas: 3\n"));
    // The replacement of web fails after its old refs were deleted in the same transaction.
    failWritingMain(web, late);
    Run interrupted;
    try {
      interrupted = migrate("--replace");
    } finally {
      stopFailing();
    }
    assertThat(interrupted.code())
        .as(interrupted.out())
        .isEqualTo(MigrateGitStorageCommand.NOT_DONE);
    assertThat(interrupted.line("web")).startsWith("failed").contains("simulated failure");
    assertThat(interrupted.line("late")).startsWith("failed").contains("simulated failure");
    assertThat(interrupted.line("shop")).startsWith("up to date");
    // web is as it was, readable through a repository opened before; late is not there at all,
    // although its objects were stored.
    assertThat(postgres.head(org, web, "main")).contains(pgWeb);
    assertThat(postgres.readFiles(org, web, pgWeb, "config").get("project.yaml"))
        .isEqualTo("name: web2\n".getBytes(UTF_8));
    assertThat(postgres.exists(org, late)).isFalse();
    assertThat(packs(late)).as("the interrupted run's pack of late").isPositive();

    // Run again: late is migrated (its leftover pack retired), web refused without --replace.
    Run resumed = migrate();
    assertThat(resumed.code()).as(resumed.out()).isEqualTo(MigrateGitStorageCommand.NOT_DONE);
    assertThat(resumed.line("late")).startsWith("migrated").contains("2 refs");
    assertThat(resumed.line("web")).startsWith("refused");
    assertThat(refs(postgres.open(org, late))).isEqualTo(refs(files.open(org, late)));
    assertThat(currentPacks(late)).isEqualTo(1);

    // With --replace web becomes the file repository's, and a reader that held it sees that.
    Run replaced = migrate("--replace");
    assertThat(replaced.code()).as(replaced.out()).isEqualTo(MigrateGitStorageCommand.OK);
    assertThat(replaced.line("web")).startsWith("replaced").contains("1 refs").contains("verified");
    assertThat(replaced.out())
        .contains("0 migrated, 3 up to date, 1 replaced, 0 refused, 0 failed");
    assertThat(postgres.head(org, web, "main")).contains(fileWeb);
    assertThat(postgres.readFiles(org, web, fileWeb, "config").get("project.yaml"))
        .isEqualTo("name: web\n".getBytes(UTF_8));
    assertThat(postgres.log(org, web, "main", 10)).isEqualTo(files.log(org, web, "main", 10));
    assertThat(currentPacks(web)).as("the old packs are retired").isEqualTo(1);

    Run last = migrate();
    assertThat(last.code()).as(last.out()).isEqualTo(MigrateGitStorageCommand.OK);
    assertThat(last.out()).contains("0 migrated, 4 up to date, 0 replaced, 0 refused, 0 failed");
  }

  @Test
  @Order(3)
  void aBlockCacheTooSmallStopsTheCommandBeforeAnythingIsReadNamingTheVariable() throws Exception {
    Run run = migrate("--gitopshq.git.block-cache-mb=2");
    assertThat(run.code()).as(run.out()).isEqualTo(MigrateGitStorageCommand.NOT_DONE);
    assertThat(run.out())
        .contains("GITOPSHQ_GIT_BLOCK_CACHE_MB must be at least 4, not 2")
        .doesNotContain("summary:");
  }
}
