package dev.gitopshq.testkube;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a test that asks for Flux hears when the controllers are, or are not, in the tool cache. */
class RealKubeFluxTest {

  @Test
  void missingControllersFailNamingTheBuildCommand(@TempDir Path emptyCache) {
    assertThatThrownBy(
            () ->
                RealKube.requireFluxBuilt(
                    RealKube.repoRoot(), Map.of("GITOPSHQ_TOOLS_CACHE", emptyCache.toString())))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("source-controller is not built")
        .hasMessageContaining("tools/build-tools.sh flux");
  }

  @Test
  void builtControllersPass(@TempDir Path cache) throws Exception {
    // What build-tools.sh leaves: an executable where bin-path.sh looks.
    for (String controller : new String[] {"source-controller", "kustomize-controller"}) {
      ProcessBuilder where =
          new ProcessBuilder(
              "bash",
              RealKube.repoRoot().resolve("tools/bin-path.sh").toString(),
              "--no-check",
              controller);
      where.environment().put("GITOPSHQ_TOOLS_CACHE", cache.toString());
      Process p = where.start();
      Path bin = Path.of(new String(p.getInputStream().readAllBytes(), UTF_8).strip());
      assertThat(p.waitFor()).isZero();
      assertThat(bin).startsWithRaw(cache);
      Files.createDirectories(bin.getParent());
      Files.writeString(bin, "#!/bin/sh\n");
      bin.toFile().setExecutable(true);
    }
    assertThatCode(
            () ->
                RealKube.requireFluxBuilt(
                    RealKube.repoRoot(), Map.of("GITOPSHQ_TOOLS_CACHE", cache.toString())))
        .doesNotThrowAnyException();
  }
}
