package dev.gitopshq.activities.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.activities.git.CommitResult;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import dev.gitopshq.activities.release.RollbackScope.Entry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Deploy branches written from rendered trees, and rollbacks that touch only their scope. */
class DeployWriterTest {
  static final UUID ORG = UUID.randomUUID();
  static final UUID PROJECT = UUID.randomUUID();
  static final Ident ADA = Ident.of("member", "m1", "Ada");

  @TempDir Path root;
  ProjectRepos repos;
  DeployWriter writer;

  @BeforeEach
  void setUp() {
    repos = new ProjectRepos(root);
    repos.create(ORG, PROJECT);
    writer = new DeployWriter(repos);
  }

  @AfterEach
  void tearDown() {
    repos.close();
  }

  /**
   * Commits {@code rendered/staging/...} on main holding exactly these files; returns the commit.
   */
  ObjectId render(Map<String, String> files) {
    List<TreeEdit> edits = new ArrayList<>();
    edits.add(TreeEdit.delete("rendered/staging"));
    files.forEach(
        (p, c) ->
            edits.add(TreeEdit.file("rendered/staging/" + p, c.getBytes(StandardCharsets.UTF_8))));
    CommitResult r =
        repos.commit(ORG, PROJECT, ProjectRepos.MAIN, null, edits, Ident.HUB, "render");
    return r.commit();
  }

  Map<String, String> deployed() {
    SortedMap<String, byte[]> files =
        repos.readFiles(ORG, PROJECT, repos.head(ORG, PROJECT, "deploy/staging").orElseThrow(), "");
    Map<String, String> out = new TreeMap<>();
    files.forEach((p, b) -> out.put(p, new String(b, StandardCharsets.UTF_8)));
    return out;
  }

  static Map<String, String> release(String version) {
    Map<String, String> f = new TreeMap<>();
    f.put("c1/acme/web/deployment-web.yaml", "acme web " + version);
    f.put("c1/acme/worker/deployment-worker.yaml", "acme worker " + version);
    f.put("c1/globex/web/deployment-web.yaml", "globex web " + version);
    f.put("c2/acme/web/deployment-web.yaml", "acme web on c2 " + version);
    f.put("_bases/common/kustomization.yaml", "bases " + version);
    return f;
  }

  @Test
  void deployMakesTheBranchRootTheRenderedEnvironment() {
    ObjectId r1 = render(release("v1"));
    DeployWriter.Written w =
        writer.deploy(ORG, PROJECT, "staging", r1, ADA, "Deploy release #1", "release #1");
    assertThat(w.changed()).isTrue();
    assertThat(deployed()).isEqualTo(release("v1"));
    assertThat(w.tenants()).containsExactly("acme", "globex");
    assertThat(repos.commitInfo(ORG, PROJECT, w.commit()).orElseThrow().author()).isEqualTo("Ada");

    DeployWriter.Written again =
        writer.deploy(ORG, PROJECT, "staging", r1, ADA, "Deploy release #1", "release #1");
    assertThat(again.changed()).isFalse();
    assertThat(again.commit()).isEqualTo(w.commit());
  }

  @Test
  void deployWithoutRenderedManifestsNamesTheEnvironment() {
    ObjectId r1 = render(release("v1"));
    assertThatThrownBy(() -> writer.deploy(ORG, PROJECT, "production", r1, ADA, "m", "release #1"))
        .isInstanceOf(NoRenderedManifestsException.class)
        .hasMessage("release #1 has no rendered manifests for production: bind a cluster to it");
  }

  @Test
  void rollbackOfOneTenantRestoresItsUnitsAndLeavesEveryOtherFileAlone() {
    ObjectId r1 = render(release("v1"));
    Map<String, String> v2 = release("v2");
    v2.put("c1/acme/cron/cronjob-cron.yaml", "acme cron v2"); // new in v2: must go
    v2.remove("c1/acme/worker/deployment-worker.yaml"); // gone in v2: must come back
    ObjectId r2 = render(v2);
    writer.deploy(ORG, PROJECT, "staging", r2, ADA, "Deploy release #2", "release #2");

    DeployWriter.Written w =
        writer.rollback(
            ORG,
            PROJECT,
            "staging",
            r1,
            RollbackScope.of(List.of(new Entry("staging", "acme", null))),
            ADA,
            "Roll back",
            "release #1");

    Map<String, String> expected = new TreeMap<>(v2);
    expected.remove("c1/acme/cron/cronjob-cron.yaml");
    expected.put("c1/acme/web/deployment-web.yaml", "acme web v1");
    expected.put("c1/acme/worker/deployment-worker.yaml", "acme worker v1");
    expected.put("c2/acme/web/deployment-web.yaml", "acme web on c2 v1");
    assertThat(deployed()).isEqualTo(expected);
    assertThat(w.tenants()).containsExactly("acme");
    assertThat(w.changedPaths()).isEqualTo(4);

    DeployWriter.Written again =
        writer.rollback(
            ORG,
            PROJECT,
            "staging",
            r1,
            RollbackScope.of(List.of(new Entry("staging", "acme", null))),
            ADA,
            "Roll back",
            "release #1");
    assertThat(again.changed()).isFalse();
    assertThat(again.commit()).isEqualTo(w.commit());
  }

  @Test
  void rollbackOfOneServiceKeepsTheTenantsOtherServicesAndTheBases() {
    ObjectId r1 = render(release("v1"));
    ObjectId r2 = render(release("v2"));
    writer.deploy(ORG, PROJECT, "staging", r2, ADA, "Deploy release #2", "release #2");

    writer.rollback(
        ORG,
        PROJECT,
        "staging",
        r1,
        RollbackScope.of(List.of(new Entry(null, "acme", "web"))),
        ADA,
        "Roll back",
        "release #1");

    Map<String, String> expected = release("v2");
    expected.put("c1/acme/web/deployment-web.yaml", "acme web v1");
    expected.put("c2/acme/web/deployment-web.yaml", "acme web on c2 v1");
    assertThat(deployed()).isEqualTo(expected);
  }

  @Test
  void rollbackOfAllRestoresTheWholeRootWithTheBases() {
    ObjectId r1 = render(release("v1"));
    Map<String, String> v2 = release("v2");
    v2.put("c3/initech/web/deployment-web.yaml", "initech v2");
    ObjectId r2 = render(v2);
    writer.deploy(ORG, PROJECT, "staging", r2, ADA, "Deploy release #2", "release #2");

    DeployWriter.Written w =
        writer.rollback(
            ORG, PROJECT, "staging", r1, RollbackScope.ALL, ADA, "Roll back", "release #1");

    assertThat(deployed()).isEqualTo(release("v1"));
    assertThat(w.tenants()).containsExactly("acme", "globex", "initech");
  }
}
