package dev.gitopshq.hub.git;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.git.CommitResult;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import dev.gitopshq.activities.git.pg.PostgresRepoStore;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.git.GitCli.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link GitHttpIT} against a hub whose repositories are in PostgreSQL (GITOPSHQ_GIT_STORAGE=
 * postgres): the real {@code git} clones and fetches exactly as from the file storage, and sees at
 * once what another replica (its own caches, the same database) committed.
 */
class PostgresGitHttpIT extends GitHttpIT {
  static HubTestSupport own;

  /** Runs after {@link GitHttpIT#start}, which leaves the hub to this class. */
  @BeforeAll
  @Timeout(value = 10, unit = TimeUnit.MINUTES) // a hub of its own starts slowly on a busy machine
  static void startOwn() throws Exception {
    own = new HubTestSupport().property("gitopshq.git.storage", "postgres").start();
    use(own);
  }

  @AfterAll
  static void stop() {
    if (own != null) {
      deleteSharedOrgProjects(); // while the hub that made them is up
      own.close();
    }
  }

  @Test
  void theHubKeepsItsRepositoriesInPostgres() {
    assertThat(repos.store().kind()).isEqualTo("postgres");
    Project p = project("stored");
    assertThat(
            HubTestSupport.count(
                "select count(*) from git_refs where org_id = ? and project_id = ?"
                    + " and name = 'refs/heads/main' and object_id = ?",
                orgId,
                p.id(),
                p.main().commitName()))
        .isEqualTo(1);
  }

  @Test
  void aFetchSeesACommitAnotherReplicaMade() throws Exception {
    Project p = project("replicated");
    String token = deployToken(p);
    Path into = newDir();
    Run cloned = clone(url(p, token), into);
    assertThat(cloned.exit()).as(cloned.output()).isZero();
    try (ProjectRepos replica =
        new ProjectRepos(new PostgresRepoStore(hub.bean(DataSource.class)))) {
      CommitResult next =
          replica.commit(
              orgId,
              p.id(),
              ProjectRepos.MAIN,
              p.main().commit(),
              List.of(TreeEdit.file("elsewhere.yaml", "from the other replica\n".getBytes(UTF_8))),
              Ident.HUB,
              "from another replica\n");
      Run fetch = git(into, "fetch", "origin");
      assertThat(fetch.exit()).as(fetch.output()).isZero();
      assertThat(git(into, "rev-parse", "origin/main").output().strip())
          .isEqualTo(next.commitName());
      assertThat(git(into, "merge", "--ff-only", "origin/main").exit()).isZero();
      assertThat(Files.readString(into.resolve("elsewhere.yaml")))
          .isEqualTo("from the other replica\n");
    }
  }
}
