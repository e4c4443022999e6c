package dev.gitopshq.activities.release;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigHistoryTest {
  static final UUID ORG = UUID.randomUUID();
  static final UUID PROJECT = UUID.randomUUID();

  @TempDir Path root;

  @Test
  void listsOnlyCommitsThatChangedTheConfigurationNewestFirst() {
    try (ProjectRepos repos = new ProjectRepos(root)) {
      repos.create(ORG, PROJECT);
      Ident ada = Ident.of("member", "m1", "Ada");
      commit(repos, "config/project.yaml", "a", ada, "Create project shop");
      commit(repos, "rendered/staging/c1/acme/web/x.yaml", "r1", Ident.HUB, "Generate revision 1");
      commit(
          repos,
          "config/values/staging/acme/web.yaml",
          "b",
          ada,
          "Set values of web for acme in staging");
      commit(
          repos,
          "config/values/staging/globex/web.yaml",
          "c",
          ada,
          "Set values of web for globex in staging");
      commit(repos, "rendered/staging/c1/acme/web/x.yaml", "r3", Ident.HUB, "Generate revision 3");

      ConfigHistory history = new ConfigHistory(repos);
      List<ConfigHistory.Change> two = history.changesAtHead(ORG, PROJECT, 0, 2);
      assertThat(two)
          .extracting(ConfigHistory.Change::description)
          .containsExactly(
              "Set values of web for globex in staging", "Set values of web for acme in staging");
      assertThat(two.getFirst().author()).isEqualTo("Ada");
      assertThat(history.changesAtHead(ORG, PROJECT, 1, 10))
          .extracting(ConfigHistory.Change::description)
          .containsExactly("Set values of web for acme in staging", "Create project shop");
    }
  }

  static void commit(ProjectRepos repos, String path, String content, Ident who, String message) {
    repos.commit(
        ORG,
        PROJECT,
        ProjectRepos.MAIN,
        null,
        List.of(TreeEdit.file(path, content.getBytes(StandardCharsets.UTF_8))),
        who,
        message);
  }
}
