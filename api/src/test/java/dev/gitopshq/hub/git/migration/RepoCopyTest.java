package dev.gitopshq.hub.git.migration;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.git.CommitResult;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.eclipse.jgit.internal.storage.dfs.DfsRepositoryDescription;
import org.eclipse.jgit.internal.storage.dfs.InMemoryRepository;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RepoCopy} from a file repository into JGit's in-memory DFS repository (the storage family
 * the PostgreSQL store belongs to): the copy carries every branch and HEAD, and the check names an
 * object a copy lacks.
 */
class RepoCopyTest {
  static final Ident AUTHOR = new Ident("Ada", "ada@example.com");
  final UUID org = UUID.randomUUID();
  final UUID project = UUID.randomUUID();
  Path root;
  ProjectRepos files;
  Path temp;

  @BeforeEach
  void setUp() throws Exception {
    root = Files.createTempDirectory("repo-copy-test");
    temp = Files.createTempDirectory("repo-copy-temp");
    files = new ProjectRepos(root);
    files.create(org, project);
  }

  @AfterEach
  void tearDown() {
    files.close();
  }

  CommitResult commit(String branch, String path, String text) {
    return files.commit(
        org,
        project,
        branch,
        null,
        List.of(TreeEdit.file(path, text.getBytes(UTF_8))),
        AUTHOR,
        "put " + path);
  }

  @Test
  void copiesEveryObjectBeforeAnyRefAndTheCheckPassesOnceTheRefsAreThere() throws Exception {
    commit("main", "config/a.yaml", "a: 1\n");
    CommitResult main = commit("main", "rendered/b.yaml", "b: 1\n");
    CommitResult staging = commit("deploy/staging", "rendered/b.yaml", "b: 0\n");
    Repository source = files.open(org, project);
    InMemoryRepository target = new InMemoryRepository(new DfsRepositoryDescription("t"));
    target.updateRef(Constants.HEAD).link("refs/heads/main");

    RepoCopy.RefState state = RepoCopy.refs(source);

    RepoCopy.Copied copied = RepoCopy.copyObjects(source, state, target, temp);

    assertThat(copied.objects()).isPositive();
    // The objects are all there, and no ref points at them yet: the caller writes the refs.
    long[] stored = new long[1];
    assertThat(RepoCopy.missingObject(target, state, stored)).isEmpty();
    assertThat(stored[0]).isEqualTo(copied.objects());
    assertThat(target.getRefDatabase().getRefsByPrefix(Constants.R_REFS)).isEmpty();
    assertThat(RepoCopy.verify(target, state, new long[1]))
        .hasValueSatisfying(v -> assertThat(v).contains("refs differ"));
    for (Map.Entry<String, ObjectId> e : state.refs().entrySet()) {
      RefUpdate u = target.updateRef(e.getKey());
      u.setNewObjectId(e.getValue());
      assertThat(u.update()).isEqualTo(RefUpdate.Result.NEW);
    }
    assertThat(target.exactRef("refs/heads/main").getObjectId()).isEqualTo(main.commit());
    assertThat(target.exactRef("refs/heads/deploy/staging").getObjectId())
        .isEqualTo(staging.commit());
    assertThat(target.exactRef(Constants.HEAD).getTarget().getName()).isEqualTo("refs/heads/main");
    long[] counted = new long[1];
    assertThat(RepoCopy.verify(target, RepoCopy.refs(source), counted)).isEmpty();
    // Two commits on main, one on staging; their trees (root, config/, rendered/) and blobs.
    assertThat(counted[0]).isEqualTo(copied.objects());
    assertThat(RepoCopy.refs(source).differences(RepoCopy.refs(target), 5, "a", "b")).isEmpty();
    try (Repository t = target;
        RevWalk walk = new RevWalk(t)) {
      RevCommit c = walk.parseCommit(main.commit());
      assertThat(c.getFullMessage()).isEqualTo("put rendered/b.yaml");
    }
  }

  @Test
  void theCheckNamesTheBlobACopyLacks() throws Exception {
    CommitResult main = commit("main", "rendered/b.yaml", "b: 1\n");
    Repository source = files.open(org, project);
    InMemoryRepository target = new InMemoryRepository(new DfsRepositoryDescription("t"));
    target.updateRef(Constants.HEAD).link("refs/heads/main");
    ObjectId blob;
    // The commit and its trees, but not the file: what a copy that lost a pack would hold.
    try (RevWalk walk = new RevWalk(source);
        ObjectInserter ins = target.newObjectInserter()) {
      RevCommit c = walk.parseCommit(main.commit());
      ObjectId rendered = files.treeAt(org, project, main.commit(), "rendered").orElseThrow();
      blob = files.listFiles(org, project, main.commit(), "rendered").get("b.yaml");
      for (ObjectId id : List.of(c.getTree(), rendered)) {
        ins.insert(Constants.OBJ_TREE, source.open(id).getBytes());
      }
      ins.insert(Constants.OBJ_COMMIT, source.open(c).getBytes());
      ins.flush();
    }
    RefUpdate u = target.updateRef("refs/heads/main");
    u.setNewObjectId(main.commit());
    assertThat(u.update()).isEqualTo(RefUpdate.Result.NEW);

    Optional<String> problem = RepoCopy.verify(target, RepoCopy.refs(source), new long[1]);

    assertThat(problem).isPresent();
    assertThat(problem.get()).contains(blob.name()).contains("missing");
  }

  @Test
  void refsThatDifferAreNamedWithBothSides() throws Exception {
    CommitResult first = commit("main", "a.yaml", "1\n");
    RepoCopy.RefState before = RepoCopy.refs(files.open(org, project));
    CommitResult second = commit("main", "a.yaml", "2\n");
    RepoCopy.RefState after = RepoCopy.refs(files.open(org, project));

    List<String> diff = after.differences(before, 5, "file", "postgres");

    assertThat(diff)
        .containsExactly(
            "refs/heads/main: file "
                + second.commit().abbreviate(10).name()
                + ", postgres "
                + first.commit().abbreviate(10).name());
  }
}
