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
import org.junit.jupiter.api.Test;

/**
 * The hub jar's {@code migrate-git-storage} mode ({@link MigrateGitStorageCommand}, the whole
 * command with its own Spring context on the real test database) on file repositories with history
 * and deploy branches: afterwards a {@link ProjectRepos} on the PostgreSQL storage serves the same
 * heads, trees and history; a second run writes nothing; a repository the PostgreSQL storage holds
 * with other commits is refused, not overwritten.
 */
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

  @Test
  void copiesEveryRepositoryThenDoesNothingTheSecondTimeAndRefusesOneThatMovedOn()
      throws Exception {
    Map<String, ObjectId> shopRefs = refs(files.open(org, shop));
    assertThat(shopRefs)
        .containsOnlyKeys(
            "refs/heads/main", "refs/heads/deploy/staging", "refs/heads/deploy/production");

    Run dry = migrate("--dry-run");
    assertThat(dry.code()).as(dry.out()).isEqualTo(MigrateGitStorageCommand.OK);
    assertThat(dry.line("shop")).startsWith("would copy").contains("3 refs");
    assertThat(postgres.exists(org, shop)).as("a dry run writes nothing").isFalse();

    Run run = migrate();
    assertThat(run.code()).as(run.out()).isEqualTo(MigrateGitStorageCommand.OK);
    assertThat(run.line("shop")).startsWith("copied").contains("3 refs").contains("verified");
    assertThat(run.line("web")).startsWith("copied").contains("1 refs");
    assertThat(run.line("empty")).startsWith("copied").contains("0 refs");
    assertThat(run.line("missing")).startsWith("no file repository");
    assertThat(run.out())
        .contains("orphan")
        .contains(root.relativize(orphan).toString())
        .contains("summary:")
        .contains("0 refused, 0 failed");

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
    assertThat(again.line("shop")).startsWith("unchanged").contains("3 refs");
    assertThat(again.line("web")).startsWith("unchanged");
    assertThat(again.line("empty")).startsWith("unchanged");
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
        .contains(newer.commit().abbreviate(10).name());
    assertThat(refused.line("shop")).startsWith("unchanged");
    assertThat(refused.out()).contains("1 refused").contains("NOT DONE");
    assertThat(postgres.head(org, web, "main")).contains(newer.commit());
  }
}
