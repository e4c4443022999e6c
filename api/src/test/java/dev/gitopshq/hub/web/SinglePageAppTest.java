package dev.gitopshq.hub.web;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SinglePageAppTest {
  @ParameterizedTest(name = "{0} -> index.html: {1}")
  @CsvSource({
    "clusters, true",
    "clusters/0d4c/commands, true",
    "projects/42/releases, true",
    "assets/index-abc.js, false",
    "favicon.ico, false",
    "api/v2/nothing-here, false",
    "git/default/demo.git/info/refs, false",
    "actuator/prometheus, false",
    "v3/api-docs, false"
  })
  void uiRoutesFallBackToIndexButHubPathsAndFilesDoNot(String path, boolean ui) {
    assertThat(SinglePageApp.isUiRoute(path)).isEqualTo(ui);
  }
}
