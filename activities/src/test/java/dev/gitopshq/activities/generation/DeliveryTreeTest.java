package dev.gitopshq.activities.generation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The delivery commit's assembly on a real JGit repository. */
class DeliveryTreeTest {
  static final UUID ORG = UUID.randomUUID();
  static final UUID PROJECT = UUID.randomUUID();

  @TempDir Path dir;
  ProjectRepos repos;

  @BeforeEach
  void repository() {
    repos = new ProjectRepos(dir);
    repos.create(ORG, PROJECT);
  }

  @AfterEach
  void close() {
    repos.close();
  }

  ObjectId tree(String... namesAndContents) {
    Map<String, byte[]> files = new TreeMap<>();
    for (int i = 0; i < namesAndContents.length; i += 2) {
      files.put(namesAndContents[i], namesAndContents[i + 1].getBytes(StandardCharsets.UTF_8));
    }
    return repos.writeTree(ORG, PROJECT, files);
  }

  void commit(SortedMap<String, ObjectId> units) {
    DeliveryTree.Assembly a = DeliveryTree.assemble(repos, ORG, PROJECT, units);
    repos.commit(ORG, PROJECT, ProjectRepos.MAIN, null, a.edits(), Ident.HUB, "deliver");
  }

  @Test
  void namesTheUnitsThatWereAddedChangedAndRemovedAndNotTheSameTrees() {
    SortedMap<String, ObjectId> first = new TreeMap<>();
    first.put("rendered/prod/eu-1/acme/web", tree("deployment-web.yaml", "replicas: 1\n"));
    first.put("rendered/prod/eu-1/acme/api", tree("deployment-api.yaml", "replicas: 1\n"));
    first.put("rendered/prod/eu-1/globex/web", tree("deployment-web.yaml", "replicas: 2\n"));
    first.put("rendered/prod/_bases/redis", tree("kustomization.yaml", "resources: []\n"));
    assertThat(DeliveryTree.assemble(repos, ORG, PROJECT, first).changes().units())
        .as("the first delivery adds every unit")
        .containsOnlyKeys(first.keySet().stream().map(p -> p.substring(9)).toList())
        .allSatisfy((unit, how) -> assertThat(how).isEqualTo("added"));
    commit(first);

    SortedMap<String, ObjectId> second = new TreeMap<>(first);
    second.put(
        "rendered/prod/eu-1/acme/web",
        tree("deployment-web.yaml", "replicas: 3\n", "service-web.yaml", "port: 80\n"));
    second.remove("rendered/prod/eu-1/acme/api");
    second.put("rendered/prod/eu-1/initech/web", tree("deployment-web.yaml", "replicas: 1\n"));
    second.put("rendered/prod/_bases/redis", tree("kustomization.yaml", "resources: [a]\n"));
    DeliveryTree.Assembly a = DeliveryTree.assemble(repos, ORG, PROJECT, second);

    assertThat(a.changes().units())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "prod/eu-1/acme/web", "changed",
                "prod/eu-1/acme/api", "removed",
                "prod/eu-1/initech/web", "added",
                "prod/_bases/redis", "changed"));
    assertThat(a.changes().summary(4)).isEqualTo("4 of 4 units changed");

    // The same trees again: nothing changed, whatever the number of units.
    commit(second);
    assertThat(DeliveryTree.assemble(repos, ORG, PROJECT, second).changes().isEmpty()).isTrue();
  }
}
