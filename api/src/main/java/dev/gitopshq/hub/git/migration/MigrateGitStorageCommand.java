package dev.gitopshq.hub.git.migration;

import dev.gitopshq.activities.git.pg.PostgresRepoStore;
import dev.gitopshq.hub.config.GitProperties;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.JdbcTemplateAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@code java -jar gitopshq-hub.jar migrate-git-storage [--dry-run] [--replace]}: copies every
 * project's file repository into the PostgreSQL storage ({@link GitStorageMigration}) and exits,
 * without serving anything. It starts only what it needs: the database (with the hub's Flyway
 * migrations, as a hub start would run them), the hub's Git settings and the target storage; it
 * reads the hub's own configuration (GITOPSHQ_DB_URL, GITOPSHQ_GIT_ROOT, ...).
 */
public final class MigrateGitStorageCommand {
  /** The first argument of the hub jar that selects this mode. */
  public static final String NAME = "migrate-git-storage";

  /** Exit codes: everything migrated (or up to date); something refused or failed; bad usage. */
  public static final int OK = 0;

  public static final int NOT_DONE = 1;
  public static final int USAGE = 2;

  private static final String USAGE_TEXT =
      """
      usage: java -jar gitopshq-hub.jar migrate-git-storage [--dry-run] [--replace] [--help]
                 [--name=value ...]

      Copies every project's Git repository from the file storage (GITOPSHQ_GIT_ROOT) into the
      PostgreSQL storage (the hub's database), verifies each copy (the same refs, every object
      reachable from them present) and prints one line per repository and a summary. Run it with
      the hub stopped. Each repository's refs are written last, in one transaction: a run that
      stops half-way leaves no half-written repository, and running it again resumes, skipping
      the repositories already up to date. It reads the hub's configuration (GITOPSHQ_DB_URL,
      GITOPSHQ_DB_USER, GITOPSHQ_DB_PASSWORD, GITOPSHQ_GIT_ROOT); Spring options such as
      --gitopshq.git.root=DIR override it.

        --dry-run   compare only: print what would be copied, write nothing
        --replace   rewrite a repository PostgreSQL holds with other refs or objects from the
                    file repository (without it such a repository is refused and left alone)
      """;

  private MigrateGitStorageCommand() {}

  /** Runs the command with the arguments after {@value #NAME}; returns the process's exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    boolean dryRun = false;
    boolean replace = false;
    List<String> springArgs = new ArrayList<>();
    for (String a : args) {
      switch (a) {
        case "--dry-run" -> dryRun = true;
        case "--replace" -> replace = true;
        case "--help", "-h" -> {
          out.print(USAGE_TEXT);
          return OK;
        }
        default -> {
          if (a.startsWith("--") && a.contains("=")) {
            springArgs.add(a);
          } else {
            err.println("migrate-git-storage: unknown argument '" + a + "'");
            err.print(USAGE_TEXT);
            return USAGE;
          }
        }
      }
    }
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(Context.class)
            .web(WebApplicationType.NONE)
            .properties(
                Map.of(
                    // The lines this command prints are its output; the hub's INFO logs are noise.
                    "logging.level.root", "WARN",
                    "spring.main.banner-mode", "off"))
            .run(springArgs.toArray(String[]::new))) {
      GitProperties git = context.getBean(GitProperties.class);
      PostgresRepoStore target = context.getBean(PostgresRepoStore.class);
      List<GitStorageMigration.Project> projects = projects(context.getBean(JdbcTemplate.class));
      GitStorageMigration.Summary summary =
          new GitStorageMigration(git.root(), target, out, dryRun, replace).run(projects);
      return summary.ok() ? OK : NOT_DONE;
    } catch (Exception e) {
      err.println("migrate-git-storage: " + e.getClass().getSimpleName() + ": " + e.getMessage());
      // Spring wraps a bad setting (GITOPSHQ_GIT_BLOCK_CACHE_MB=2) in bean creation errors: the
      // innermost cause says what to change.
      Throwable root = e;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      if (root != e) {
        err.println("migrate-git-storage: because: " + root.getMessage());
      }
      return NOT_DONE;
    }
  }

  /**
   * Every project of every organization, by organization slug and project name. One query per
   * organization, each filtered by it, as every query of org-owned rows is.
   */
  static List<GitStorageMigration.Project> projects(JdbcTemplate jdbc) {
    List<GitStorageMigration.Project> out = new ArrayList<>();
    record Org(UUID id, String slug) {}
    List<Org> orgs =
        jdbc.query(
            "select id, slug from organizations order by slug",
            (rs, i) -> new Org(rs.getObject("id", UUID.class), rs.getString("slug")));
    for (Org org : orgs) {
      out.addAll(
          jdbc.query(
              "select id, name from projects where org_id = ? order by name",
              (rs, i) ->
                  new GitStorageMigration.Project(
                      org.id(), org.slug(), rs.getObject("id", UUID.class), rs.getString("name")),
              org.id()));
    }
    return out;
  }

  /**
   * The few beans the command needs: no web server, gRPC, Temporal worker or schedulers. Not a
   * {@code @Configuration}, so the hub's component scan never picks it up.
   */
  @ImportAutoConfiguration({
    DataSourceAutoConfiguration.class,
    DataSourceTransactionManagerAutoConfiguration.class,
    JdbcTemplateAutoConfiguration.class,
    FlywayAutoConfiguration.class
  })
  @EnableConfigurationProperties(GitProperties.class)
  static class Context {
    @Bean(destroyMethod = "close")
    PostgresRepoStore postgresStore(DataSource dataSource, GitProperties git) {
      return new PostgresRepoStore(dataSource, git.blockCacheMb());
    }
  }
}
