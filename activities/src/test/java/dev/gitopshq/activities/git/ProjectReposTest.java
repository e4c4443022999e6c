package dev.gitopshq.activities.git;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.TreeFormatter;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hosted repositories on real bare repositories in a temporary directory (the file storage).
 * {@link PostgresProjectReposIT} runs the same tests on the PostgreSQL storage, replacing the ones
 * that look at files.
 */
class ProjectReposTest {
  static final Ident ADA = Ident.of("member", "42", "Ada Admin");

  @TempDir Path root;
  ProjectRepos repos;
  final UUID org = UUID.randomUUID();
  final UUID project = UUID.randomUUID();

  /** A new ProjectRepos on the same storage: another replica, with its own caches. */
  ProjectRepos newReplica() {
    return new ProjectRepos(root);
  }

  @BeforeEach
  void create() {
    repos = newReplica();
    repos.create(org, project);
  }

  @AfterEach
  void close() {
    repos.close();
  }

  CommitResult commit(TreeEdit... edits) {
    return repos.commit(org, project, ProjectRepos.MAIN, null, List.of(edits), ADA, "change\n");
  }

  SortedMap<String, byte[]> files(ObjectId commit) {
    return repos.readFiles(org, project, commit, "");
  }

  static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }

  static Map<String, String> text(SortedMap<String, byte[]> files) {
    java.util.TreeMap<String, String> out = new java.util.TreeMap<>();
    files.forEach((k, v) -> out.put(k, new String(v, UTF_8)));
    return out;
  }

  @Test
  void createsABareRepositoryWithHeadOnMainUnderOrgAndProject() throws Exception {
    Path dir = root.resolve(org.toString()).resolve(project + ".git");
    assertThat(repos.dir(org, project)).isEqualTo(dir);
    assertThat(dir.resolve("HEAD")).hasContent("ref: refs/heads/main");
    assertThat(repos.open(org, project).isBare()).isTrue();
    assertThat(repos.exists(org, project)).isTrue();
    assertThat(repos.head(org, project, ProjectRepos.MAIN)).isEmpty();
    // Creating again changes nothing.
    repos.create(org, project);
    assertThat(repos.exists(org, project)).isTrue();
  }

  @Test
  void aProjectWithoutRepositoryIsReportedAsSuch() {
    UUID other = UUID.randomUUID();
    assertThat(repos.exists(org, other)).isFalse();
    assertThatThrownBy(() -> repos.open(org, other)).isInstanceOf(NoSuchRepositoryException.class);
  }

  @Test
  void aCommitWritesFilesThatReadBack() {
    CommitResult r =
        commit(
            TreeEdit.file(
                "rendered/production/eu-1/acme/web/deployment-web.yaml",
                bytes("kind: Deployment\n")),
            TreeEdit.file("config/project.yaml", bytes("name: shop\n")));
    assertThat(r.changed()).isTrue();
    assertThat(r.previous()).isNull();
    assertThat(r.changedPaths()).isEqualTo(2);
    assertThat(repos.head(org, project, ProjectRepos.MAIN)).contains(r.commit());
    assertThat(text(files(r.commit())))
        .containsExactly(
            Map.entry("config/project.yaml", "name: shop\n"),
            Map.entry(
                "rendered/production/eu-1/acme/web/deployment-web.yaml", "kind: Deployment\n"));
    assertThat(text(repos.readFiles(org, project, r.commit(), "rendered/production")))
        .containsOnlyKeys("eu-1/acme/web/deployment-web.yaml");

    ProjectRepos.CommitInfo info = repos.log(org, project, ProjectRepos.MAIN, 10).get(0);
    assertThat(info.id()).isEqualTo(r.commitName());
    assertThat(info.author()).isEqualTo("Ada Admin");
    assertThat(info.authorEmail()).isEqualTo("member-42@users.gitopshq.invalid");
    assertThat(info.parents()).isEmpty();
    assertThat(repos.commitInfo(org, project, r.commitName())).contains(info);
  }

  @Test
  void theSameEditsAgainCommitNothing() {
    CommitResult first = commit(TreeEdit.file("a/b.yaml", bytes("x: 1\n")));
    CommitResult again = commit(TreeEdit.file("a/b.yaml", bytes("x: 1\n")));
    assertThat(again.changed()).isFalse();
    assertThat(again.changedPaths()).isZero();
    assertThat(again.commit()).isEqualTo(first.commit());
    assertThat(repos.log(org, project, ProjectRepos.MAIN, 10)).hasSize(1);

    // Deleting what is not there is no change either, and neither is an empty edit list.
    assertThat(commit(TreeEdit.delete("nothing/here")).changed()).isFalse();
    assertThat(commit().changed()).isFalse();
    assertThat(repos.log(org, project, ProjectRepos.MAIN, 10)).hasSize(1);
  }

  @Test
  void anEmptyFirstCommitCreatesNoBranch() {
    CommitResult r = commit(TreeEdit.delete("x"));
    assertThat(r.changed()).isFalse();
    assertThat(r.commit()).isNull();
    assertThat(repos.head(org, project, ProjectRepos.MAIN)).isEmpty();
  }

  @Test
  void deleteRemovesAFileOrAWholeDirectoryButNotItsNeighbours() {
    commit(
        TreeEdit.file("rendered/prod/a.yaml", bytes("a")),
        TreeEdit.file("rendered/prod/sub/b.yaml", bytes("b")),
        TreeEdit.file("rendered/prod-eu/c.yaml", bytes("c")),
        TreeEdit.file("rendered/prod.yaml", bytes("d")),
        TreeEdit.file("rendered/production/e.yaml", bytes("e")));
    CommitResult r = commit(TreeEdit.delete("rendered/prod"));
    assertThat(r.changedPaths()).isEqualTo(2);
    assertThat(files(r.commit()))
        .containsOnlyKeys(
            "rendered/prod-eu/c.yaml", "rendered/prod.yaml", "rendered/production/e.yaml");

    CommitResult one = commit(TreeEdit.delete("rendered/prod.yaml"));
    assertThat(one.changedPaths()).isEqualTo(1);
    assertThat(files(one.commit()))
        .containsOnlyKeys("rendered/prod-eu/c.yaml", "rendered/production/e.yaml");
  }

  @Test
  void putTreeReplacesEverythingAtItsPath() {
    commit(
        TreeEdit.file("rendered/prod/old.yaml", bytes("old")),
        TreeEdit.file("rendered/prod/keep-name.yaml", bytes("old content")),
        TreeEdit.file("rendered/staging/s.yaml", bytes("s")));
    ObjectId tree =
        repos.writeTree(
            org,
            project,
            Map.of("keep-name.yaml", bytes("new content"), "eu-1/acme/web/d.yaml", bytes("d")));

    CommitResult r = commit(TreeEdit.tree("rendered/prod", tree));
    assertThat(text(files(r.commit())))
        .containsExactly(
            Map.entry("rendered/prod/eu-1/acme/web/d.yaml", "d"),
            Map.entry("rendered/prod/keep-name.yaml", "new content"),
            Map.entry("rendered/staging/s.yaml", "s"));
    // old.yaml removed, keep-name.yaml changed, d.yaml added.
    assertThat(r.changedPaths()).isEqualTo(3);
    assertThat(repos.treeAt(org, project, r.commit(), "rendered/prod")).contains(tree);
    assertThat(repos.treeAt(org, project, r.commit(), "rendered/missing")).isEmpty();
    assertThat(repos.treeAt(org, project, r.commit(), "rendered/staging/s.yaml")).isEmpty();

    // The same tree again is no change.
    assertThat(commit(TreeEdit.tree("rendered/prod", tree)).changed()).isFalse();
  }

  @Test
  void putTreeAtTheRootReplacesTheWholeBranch() {
    CommitResult main =
        commit(
            TreeEdit.file("rendered/prod/eu-1/acme/web/d.yaml", bytes("d")),
            TreeEdit.file("config/p.yaml", bytes("p")));
    ObjectId released = repos.treeAt(org, project, main.commit(), "rendered/prod").orElseThrow();
    CommitResult deploy =
        repos.commit(
            org,
            project,
            ProjectRepos.deployBranch("prod"),
            ObjectId.zeroId(),
            List.of(TreeEdit.tree("", released)),
            ADA,
            "release 1\n");
    assertThat(deploy.changed()).isTrue();
    assertThat(files(deploy.commit())).containsOnlyKeys("eu-1/acme/web/d.yaml");
    assertThat(repos.head(org, project, "deploy/prod")).contains(deploy.commit());
    // main is untouched by a commit to another branch.
    assertThat(repos.head(org, project, ProjectRepos.MAIN)).contains(main.commit());
  }

  @Test
  void aFileCanReplaceADirectoryAndADirectoryAFile() throws Exception {
    commit(TreeEdit.file("a/b.yaml", bytes("1")), TreeEdit.file("c", bytes("2")));
    CommitResult r =
        commit(
            TreeEdit.file("a", bytes("now a file")), TreeEdit.file("c/d.yaml", bytes("now a dir")));
    assertThat(text(files(r.commit())))
        .containsExactly(Map.entry("a", "now a file"), Map.entry("c/d.yaml", "now a dir"));
    assertTreeIsWellFormed(r.commit());

    // The same through a tree put below a file.
    ObjectId tree = repos.writeTree(org, project, Map.of("x.yaml", bytes("x")));
    CommitResult t = commit(TreeEdit.tree("a/sub", tree));
    assertThat(text(files(t.commit())))
        .containsExactly(Map.entry("a/sub/x.yaml", "x"), Map.entry("c/d.yaml", "now a dir"));
    assertTreeIsWellFormed(t.commit());
  }

  /** No tree of the commit holds two entries of the same name (git fsck would call it broken). */
  private void assertTreeIsWellFormed(ObjectId commit) throws Exception {
    Repository repo = repos.open(org, project);
    try (RevWalk walk = new RevWalk(repo);
        TreeWalk tw = new TreeWalk(repo)) {
      tw.addTree(walk.parseCommit(commit).getTree());
      tw.setRecursive(false);
      List<String> seen = new ArrayList<>();
      while (tw.next()) {
        assertThat(seen).doesNotContain(tw.getPathString());
        seen.add(tw.getPathString());
        if (tw.isSubtree()) {
          tw.enterSubtree();
        }
      }
    }
  }

  @Test
  void unsafePathsAreRefusedBeforeAnythingIsWritten() {
    commit(TreeEdit.file("ok.yaml", bytes("1")));
    for (String bad : List.of("../escape.yaml", "/etc/passwd", ".git/config", "a//b", "a\\b")) {
      assertThatThrownBy(
              () -> commit(TreeEdit.file("fine.yaml", bytes("2")), TreeEdit.file(bad, bytes("x"))))
          .isInstanceOf(UnsafePathException.class);
      assertThatThrownBy(() -> commit(TreeEdit.delete(bad)))
          .isInstanceOf(UnsafePathException.class);
      assertThatThrownBy(() -> repos.writeTree(org, project, Map.of(bad, bytes("x"))))
          .isInstanceOf(UnsafePathException.class);
    }
    assertThat(repos.log(org, project, ProjectRepos.MAIN, 10)).hasSize(1);
    assertThat(files(repos.head(org, project, ProjectRepos.MAIN).orElseThrow()))
        .containsOnlyKeys("ok.yaml");
  }

  @Test
  void aTreeHoldingASymlinkOrAnUnsafeNameIsNotCommitted() throws Exception {
    Repository repo = repos.open(org, project);
    ObjectId withLink;
    ObjectId withDotGit;
    try (ObjectInserter ins = repo.newObjectInserter()) {
      TreeFormatter f = new TreeFormatter();
      f.append(
          "link", FileMode.SYMLINK, ins.insert(Constants.OBJ_BLOB, bytes("../../../etc/passwd")));
      withLink = ins.insert(f);
      TreeFormatter hooks = new TreeFormatter();
      hooks.append(
          "post-checkout",
          FileMode.REGULAR_FILE,
          ins.insert(Constants.OBJ_BLOB, bytes("#!/bin/sh")));
      TreeFormatter g = new TreeFormatter();
      g.append(".GIT", FileMode.TREE, ins.insert(hooks));
      g.append("x.yaml", FileMode.REGULAR_FILE, ins.insert(Constants.OBJ_BLOB, bytes("x")));
      withDotGit = ins.insert(g);
      ins.flush();
    }
    commit(TreeEdit.file("ok.yaml", bytes("1")));
    assertThatThrownBy(() -> commit(TreeEdit.tree("rendered", withLink)))
        .isInstanceOf(UnsafePathException.class);
    assertThatThrownBy(() -> commit(TreeEdit.tree("", withLink)))
        .isInstanceOf(UnsafePathException.class);
    assertThatThrownBy(() -> commit(TreeEdit.tree("rendered", withDotGit)))
        .isInstanceOf(UnsafePathException.class);
    assertThat(repos.log(org, project, ProjectRepos.MAIN, 10)).hasSize(1);
  }

  @Test
  void branchNamesGitWouldNotAcceptAreRefused() {
    for (String bad : List.of("../evil", "deploy/../main", "a..b", "", "x.lock", "a b", "-x/")) {
      assertThatThrownBy(
              () ->
                  repos.commit(
                      org, project, bad, null, List.of(TreeEdit.file("a", bytes("1"))), ADA, "m"))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(root.resolve("evil")).doesNotExist();
  }

  @Test
  void aStaleExpectedHeadIsAConcurrentChange() {
    CommitResult first = commit(TreeEdit.file("a.yaml", bytes("1")));
    CommitResult second =
        repos.commit(
            org,
            project,
            ProjectRepos.MAIN,
            first.commit(),
            List.of(TreeEdit.file("a.yaml", bytes("2"))),
            ADA,
            "m");
    assertThat(second.changed()).isTrue();
    assertThat(second.previous()).isEqualTo(first.commit());

    assertThatThrownBy(
            () ->
                repos.commit(
                    org,
                    project,
                    ProjectRepos.MAIN,
                    first.commit(),
                    List.of(TreeEdit.file("a.yaml", bytes("3"))),
                    ADA,
                    "m"))
        .isInstanceOf(ConcurrentChangeException.class)
        .hasMessageContaining(first.commit().name());
    // zeroId means "the branch must not exist yet".
    assertThatThrownBy(
            () ->
                repos.commit(
                    org,
                    project,
                    ProjectRepos.MAIN,
                    ObjectId.zeroId(),
                    List.of(TreeEdit.file("b.yaml", bytes("3"))),
                    ADA,
                    "m"))
        .isInstanceOf(ConcurrentChangeException.class);
    assertThat(repos.head(org, project, ProjectRepos.MAIN)).contains(second.commit());
    assertThat(text(files(second.commit()))).containsExactly(Map.entry("a.yaml", "2"));
  }

  @Test
  void concurrentCommitsToOneBranchAllLand() throws Exception {
    commit(TreeEdit.file("base.yaml", bytes("base")));
    int writers = 4;
    int each = 10;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<List<CommitResult>>> futures = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        Callable<List<CommitResult>> task =
            () -> {
              start.await();
              List<CommitResult> out = new ArrayList<>();
              for (int i = 0; i < each; i++) {
                out.add(
                    commit(
                        TreeEdit.file("w" + writer + "/f" + i + ".yaml", bytes(writer + ":" + i))));
              }
              return out;
            };
        futures.add(pool.submit(task));
      }
      start.countDown();
      List<String> landed = new ArrayList<>();
      for (Future<List<CommitResult>> f : futures) {
        for (CommitResult r : f.get(120, TimeUnit.SECONDS)) {
          assertThat(r.changed()).isTrue();
          landed.add(r.commitName());
        }
      }
      ObjectId head = repos.head(org, project, ProjectRepos.MAIN).orElseThrow();
      SortedMap<String, byte[]> files = files(head);
      assertThat(files).hasSize(1 + writers * each);
      for (int w = 0; w < writers; w++) {
        for (int i = 0; i < each; i++) {
          assertThat(new String(files.get("w" + w + "/f" + i + ".yaml"), UTF_8))
              .isEqualTo(w + ":" + i);
        }
      }
      List<String> history =
          repos.log(org, project, ProjectRepos.MAIN, 1000).stream()
              .map(ProjectRepos.CommitInfo::id)
              .toList();
      assertThat(history).hasSize(1 + writers * each).containsAll(landed);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void twoReplicasSharingTheDirectoryDoNotLoseCommits() throws Exception {
    commit(TreeEdit.file("base.yaml", bytes("base")));
    try (ProjectRepos other = newReplica()) {
      ExecutorService pool = Executors.newFixedThreadPool(2);
      CountDownLatch start = new CountDownLatch(1);
      try {
        Future<?> a =
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < 10; i++) {
                    commit(TreeEdit.file("a/" + i, bytes("a")));
                  }
                  return null;
                });
        Future<?> b =
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < 10; i++) {
                    other.commit(
                        org,
                        project,
                        ProjectRepos.MAIN,
                        null,
                        List.of(TreeEdit.file("b/" + i, bytes("b"))),
                        ADA,
                        "b");
                  }
                  return null;
                });
        start.countDown();
        a.get(120, TimeUnit.SECONDS);
        b.get(120, TimeUnit.SECONDS);
      } finally {
        pool.shutdownNow();
      }
    }
    ObjectId head = repos.head(org, project, ProjectRepos.MAIN).orElseThrow();
    assertThat(files(head)).hasSize(21);
    assertThat(repos.log(org, project, ProjectRepos.MAIN, 100)).hasSize(21);
  }

  @Test
  void undoMovesTheBranchBackOnlyWhileItIsStillAtTheCommit() {
    CommitResult first = commit(TreeEdit.file("a.yaml", bytes("1")));
    CommitResult second = commit(TreeEdit.file("a.yaml", bytes("2")));
    CommitResult third = commit(TreeEdit.file("a.yaml", bytes("3")));

    // The branch moved on to third: undoing second does nothing.
    assertThat(repos.undo(org, project, ProjectRepos.MAIN, second.commit(), first.commit()))
        .isFalse();
    assertThat(repos.head(org, project, ProjectRepos.MAIN)).contains(third.commit());

    assertThat(repos.undo(org, project, ProjectRepos.MAIN, third.commit(), second.commit()))
        .isTrue();
    assertThat(repos.head(org, project, ProjectRepos.MAIN)).contains(second.commit());
    assertThat(text(files(second.commit()))).containsExactly(Map.entry("a.yaml", "2"));
    // Undoing it twice is a no-op.
    assertThat(repos.undo(org, project, ProjectRepos.MAIN, third.commit(), second.commit()))
        .isFalse();
    assertThat(repos.head(org, project, ProjectRepos.MAIN)).contains(second.commit());
  }

  @Test
  void undoOfABranchsFirstCommitDeletesTheBranch() {
    CommitResult first = commit(TreeEdit.file("a.yaml", bytes("1")));
    assertThat(repos.undo(org, project, ProjectRepos.MAIN, first.commit(), null)).isTrue();
    assertThat(repos.head(org, project, ProjectRepos.MAIN)).isEmpty();

    CommitResult deploy =
        repos.commit(
            org,
            project,
            "deploy/prod",
            null,
            List.of(TreeEdit.file("d.yaml", bytes("d"))),
            ADA,
            "d");
    assertThat(repos.undo(org, project, "deploy/prod", first.commit(), null)).isFalse();
    assertThat(repos.head(org, project, "deploy/prod")).contains(deploy.commit());
    assertThat(repos.undo(org, project, "deploy/prod", deploy.commit(), null)).isTrue();
    assertThat(repos.head(org, project, "deploy/prod")).isEmpty();
  }

  @Test
  void theCommitMessageAndIdentitiesAreRecorded() throws Exception {
    CommitMessage message =
        new CommitMessage(
            "Set values of web\nfor acme",
            "",
            "Ada Admin (member 42)",
            new java.util.LinkedHashMap<>(Map.of("project", "shop")),
            "values.updated");
    CommitResult r =
        repos.commit(
            org,
            project,
            ProjectRepos.MAIN,
            null,
            List.of(TreeEdit.file("v.yaml", bytes("v"))),
            ADA,
            message.format());
    try (RevWalk walk = new RevWalk(repos.open(org, project))) {
      var c = walk.parseCommit(r.commit());
      assertThat(c.getShortMessage()).isEqualTo("Set values of web for acme");
      assertThat(c.getFullMessage())
          .contains("GitOpsHQ-Author: Ada Admin (member 42)")
          .contains("GitOpsHQ-Scope: project=shop")
          .contains("GitOpsHQ-Change: values.updated");
      assertThat(c.getCommitterIdent().getName()).isEqualTo(Ident.HUB.name());
      assertThat(c.getAuthorIdent().getName()).isEqualTo("Ada Admin");
    }
  }

  @Test
  void commitInfoOfSomethingThatIsNotACommitIsEmpty() {
    CommitResult r = commit(TreeEdit.file("a.yaml", bytes("1")));
    ObjectId tree = repos.treeAt(org, project, r.commit(), "").orElseThrow();
    assertThat(repos.commitInfo(org, project, "not-an-id")).isEmpty();
    assertThat(repos.commitInfo(org, project, ObjectId.zeroId().name())).isEmpty();
    assertThat(repos.commitInfo(org, project, tree.name())).isEmpty();
  }

  @Test
  void deleteRemovesTheRepository() throws Exception {
    commit(TreeEdit.file("a.yaml", bytes("1")));
    Path dir = repos.dir(org, project);
    repos.delete(org, project);
    assertThat(Files.exists(dir)).isFalse();
    assertThat(repos.exists(org, project)).isFalse();
    assertThatThrownBy(() -> repos.open(org, project))
        .isInstanceOf(NoSuchRepositoryException.class);
  }

  private long count(String subdir, String suffix) throws java.io.IOException {
    Path objects = repos.dir(org, project).resolve("objects");
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(objects.resolve(subdir))) {
      return files.filter(f -> f.getFileName().toString().endsWith(suffix)).count();
    }
  }

  private long looseObjects() throws java.io.IOException {
    Path objects = repos.dir(org, project).resolve("objects");
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(objects)) {
      return files
          .filter(java.nio.file.Files::isRegularFile)
          .filter(f -> f.getParent().getFileName().toString().matches("[0-9a-f]{2}"))
          .count();
    }
  }

  @Test
  void aBatchOfTreesIsWrittenAsOnePackAndCommitsLikeLooseOnes() throws Exception {
    long packsBefore = count("pack", ".pack");
    long looseBefore = looseObjects();
    List<ObjectId> trees =
        repos.writeTrees(
            org,
            project,
            List.of(
                Map.of("deployment.yaml", bytes("a"), "service.yaml", bytes("s")),
                Map.of("deployment.yaml", bytes("b"), "service.yaml", bytes("s"))));
    assertThat(count("pack", ".pack")).isEqualTo(packsBefore + 1);
    assertThat(looseObjects()).isEqualTo(looseBefore);
    // The same tree ids a loose write gives (content addressing), and a commit reads them back.
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
  void manyBatchPacksAreRepackedAndUncommittedTreesSurvive() throws Exception {
    List<ObjectId> trees = new java.util.ArrayList<>();
    for (int i = 0; i < 60; i++) {
      trees.add(repos.writeTree(org, project, Map.of("f.yaml", bytes("v" + i))));
    }
    assertThat(count("pack", ".pack")).isGreaterThanOrEqualTo(60);
    commit(TreeEdit.tree("rendered/x", trees.get(0)));
    // Packs younger than an hour are never deleted (a reader may have just opened one): age them.
    java.nio.file.attribute.FileTime twoHoursAgo =
        java.nio.file.attribute.FileTime.from(Instant.now().minusSeconds(7200));
    try (java.util.stream.Stream<Path> packs =
        java.nio.file.Files.list(repos.dir(org, project).resolve("objects/pack"))) {
      for (Path f : packs.toList()) {
        java.nio.file.Files.setLastModifiedTime(f, twoHoursAgo);
      }
    }
    ObjectId rendering = repos.writeTree(org, project, Map.of("g.yaml", bytes("still rendering")));

    repos.maintain(org, project);
    assertThat(count("pack", ".pack")).isLessThan(10);
    assertThat(text(files(repos.head(org, project, ProjectRepos.MAIN).orElseThrow())))
        .containsEntry("rendered/x/f.yaml", "v0");
    // A tree no commit refers to yet, written by a generation still rendering, is still there.
    assertThat(repos.listFiles(org, project, rendering, "")).containsKey("g.yaml");
    long after = count("pack", ".pack");
    repos.maintain(org, project); // below the limits now: nothing to do
    assertThat(count("pack", ".pack")).isEqualTo(after);
  }
}
