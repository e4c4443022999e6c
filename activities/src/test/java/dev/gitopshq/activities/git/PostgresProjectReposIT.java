package dev.gitopshq.activities.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.activities.git.pg.PostgresRepoStore;
import dev.gitopshq.activities.store.TestSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link ProjectReposTest} on the PostgreSQL storage (the real test database): every test of the
 * file storage runs here too, with "another replica" a second ProjectRepos with its own caches on
 * the same database, and the tests that looked at files look at rows instead.
 */
class PostgresProjectReposIT extends ProjectReposTest {
  static TestSchema db;

  @BeforeAll
  static void schema() throws Exception {
    db = TestSchema.create("git_storage_it");
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @Override
  ProjectRepos newReplica() {
    return new ProjectRepos(new PostgresRepoStore(db.dataSource()));
  }

  private long rows(String table) throws Exception {
    return db.count(
        "select count(*) from " + table + " where org_id = ? and project_id = ?", org, project);
  }

  private long currentPacks() throws Exception {
    return db.count(
        "select count(*) from git_packs where org_id = ? and project_id = ? and state = 'current'",
        org,
        project);
  }

  @Test
  @Override
  void createsABareRepositoryWithHeadOnMainUnderOrgAndProject() throws Exception {
    assertThat(repos.store().kind()).isEqualTo("postgres");
    assertThat(repos.exists(org, project)).isTrue();
    assertThat(repos.open(org, project).isBare()).isTrue();
    Ref head = repos.open(org, project).exactRef(Constants.HEAD);
    assertThat(head.isSymbolic()).isTrue();
    assertThat(head.getTarget().getName()).isEqualTo("refs/heads/main");
    assertThat(repos.head(org, project, ProjectRepos.MAIN)).isEmpty();
    assertThat(rows("git_repositories")).isEqualTo(1);
    // Creating again changes nothing.
    repos.create(org, project);
    assertThat(rows("git_refs")).isEqualTo(1);
    assertThatThrownBy(() -> repos.root()).isInstanceOf(IllegalStateException.class);
  }

  @Test
  @Override
  void deleteRemovesTheRepository() throws Exception {
    commit(TreeEdit.file("a.yaml", bytes("1")));
    try (ProjectRepos other = newReplica()) {
      assertThat(other.head(org, project, ProjectRepos.MAIN)).isPresent();
      repos.delete(org, project);
      assertThat(repos.exists(org, project)).isFalse();
      for (String table :
          List.of(
              "git_repositories", "git_refs", "git_packs", "git_pack_files", "git_pack_chunks")) {
        assertThat(rows(table)).as(table).isZero();
      }
      assertThatThrownBy(() -> repos.open(org, project))
          .isInstanceOf(NoSuchRepositoryException.class);
      // The other replica had it open: it learns at its next use.
      assertThatThrownBy(() -> other.open(org, project))
          .isInstanceOf(NoSuchRepositoryException.class);
    }
  }

  @Test
  @Override
  void aBatchOfTreesIsWrittenAsOnePackAndCommitsLikeLooseOnes() throws Exception {
    long before = currentPacks();
    List<ObjectId> trees =
        repos.writeTrees(
            org,
            project,
            List.of(
                Map.of("deployment.yaml", bytes("a"), "service.yaml", bytes("s")),
                Map.of("deployment.yaml", bytes("b"), "service.yaml", bytes("s"))));
    assertThat(currentPacks()).isEqualTo(before + 1);
    assertThat(trees.get(0))
        .isEqualTo(
            repos.writeTree(
                org, project, Map.of("deployment.yaml", bytes("a"), "service.yaml", bytes("s"))));
    CommitResult c =
        commit(
            TreeEdit.tree("rendered/a", trees.get(0)), TreeEdit.tree("rendered/b", trees.get(1)));
    assertThat(text(files(c.commit())))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "rendered/a/deployment.yaml", "a",
                "rendered/a/service.yaml", "s",
                "rendered/b/deployment.yaml", "b",
                "rendered/b/service.yaml", "s"));
  }

  @Test
  @Override
  void manyBatchPacksAreRepackedAndUncommittedTreesSurvive() throws Exception {
    List<ObjectId> trees = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      trees.add(repos.writeTree(org, project, Map.of("f.yaml", bytes("v" + i))));
    }
    commit(TreeEdit.tree("rendered/x", trees.get(0)));
    ObjectId rendering = repos.writeTree(org, project, Map.of("g.yaml", bytes("still rendering")));
    assertThat(currentPacks()).isGreaterThan(60);

    try (ProjectRepos other = newReplica()) {
      // Another replica holds the pack list from before the compaction.
      assertThat(other.listFiles(org, project, trees.get(59), "")).containsKey("f.yaml");
      repos.maintain(org, project);
      assertThat(currentPacks()).isLessThan(5);
      assertThat(text(files(repos.head(org, project, ProjectRepos.MAIN).orElseThrow())))
          .containsEntry("rendered/x/f.yaml", "v0");
      // A tree no commit refers to yet, written by a generation still rendering, is still there.
      assertThat(repos.listFiles(org, project, rendering, "")).containsKey("g.yaml");
      assertThat(other.listFiles(org, project, rendering, "")).containsKey("g.yaml");
      assertThat(other.readFiles(org, project, trees.get(30), "")).containsKey("f.yaml");
    }
    long after = currentPacks();
    repos.maintain(org, project); // below the limit now: nothing to do
    assertThat(currentPacks()).isEqualTo(after);
  }

  @Test
  void aReplicaSeesTheOthersCommitAtOnce() {
    commit(TreeEdit.file("a.yaml", bytes("1")));
    try (ProjectRepos other = newReplica()) {
      ObjectId first = other.head(org, project, ProjectRepos.MAIN).orElseThrow();
      assertThat(text(other.readFiles(org, project, first, ""))).containsEntry("a.yaml", "1");
      // Both have the repository open (with its refs and packs read); one commits, twice.
      CommitResult second = commit(TreeEdit.file("b.yaml", bytes("2")));
      assertThat(other.head(org, project, ProjectRepos.MAIN)).contains(second.commit());
      assertThat(text(other.readFiles(org, project, second.commit(), "")))
          .containsEntry("b.yaml", "2");
      CommitResult third =
          other.commit(
              org,
              project,
              ProjectRepos.MAIN,
              second.commit(),
              List.of(TreeEdit.file("c.yaml", bytes("3"))),
              ADA,
              "c");
      assertThat(third.previous()).isEqualTo(second.commit());
      assertThat(repos.head(org, project, ProjectRepos.MAIN)).contains(third.commit());
      assertThat(repos.commitInfo(org, project, third.commit().name())).isPresent();
      // A tree written by one replica and named to the other (as the database would) is found.
      ObjectId tree = other.writeTree(org, project, Map.of("t.yaml", bytes("t")));
      assertThat(repos.existingTrees(org, project, List.of(tree))).containsExactly(tree);
      assertThat(repos.listFiles(org, project, tree, "")).containsKey("t.yaml");
    }
  }

  @Test
  void aStaleReplicaCannotMoveTheBranchBackwards() {
    CommitResult first = commit(TreeEdit.file("a.yaml", bytes("1")));
    try (ProjectRepos other = newReplica()) {
      assertThat(other.head(org, project, ProjectRepos.MAIN)).contains(first.commit());
      CommitResult second = commit(TreeEdit.file("b.yaml", bytes("2")));
      // The other replica last read the branch at the first commit; expecting that now fails.
      assertThatThrownBy(
              () ->
                  other.commit(
                      org,
                      project,
                      ProjectRepos.MAIN,
                      first.commit(),
                      List.of(TreeEdit.file("c.yaml", bytes("3"))),
                      ADA,
                      "c"))
          .isInstanceOf(ConcurrentChangeException.class);
      assertThat(other.undo(org, project, ProjectRepos.MAIN, first.commit(), null)).isFalse();
      assertThat(repos.head(org, project, ProjectRepos.MAIN)).contains(second.commit());
    }
  }

  @Test
  void filesLargerThanManyChunksReadBack() {
    byte[] big = new byte[3 * 1024 * 1024 + 17];
    new Random(7).nextBytes(big);
    CommitResult c = commit(TreeEdit.file("big.bin", big));
    try (ProjectRepos other = newReplica()) {
      assertThat(other.readFiles(org, project, c.commit(), "").get("big.bin")).isEqualTo(big);
    }
    assertThat(repos.readFiles(org, project, c.commit(), "").get("big.bin")).isEqualTo(big);
  }

  @Test
  void anotherOrganizationsRepositoryIsNotFound() throws Exception {
    commit(TreeEdit.file("secret.yaml", bytes("org a")));
    UUID otherOrg = UUID.randomUUID();
    assertThat(repos.exists(otherOrg, project)).isFalse();
    assertThatThrownBy(() -> repos.open(otherOrg, project))
        .isInstanceOf(NoSuchRepositoryException.class);
    // The same project id under another organization is another, empty repository.
    repos.create(otherOrg, project);
    assertThat(repos.head(otherOrg, project, ProjectRepos.MAIN)).isEmpty();
    ObjectId ours = repos.head(org, project, ProjectRepos.MAIN).orElseThrow();
    assertThat(repos.commitInfo(otherOrg, project, ours.name())).isEmpty();
    repos.delete(otherOrg, project);
    assertThat(repos.head(org, project, ProjectRepos.MAIN)).contains(ours);
  }
}
