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

/** What a test that asks for Argo CD hears when its binary is, or is not, in the tool cache. */
class RealKubeArgoCdTest {

  @Test
  void aMissingBinaryFailsNamingTheBuildCommand(@TempDir Path emptyCache) {
    assertThatThrownBy(
            () ->
                RealKube.requireArgoCdBuilt(
                    RealKube.repoRoot(), Map.of("GITOPSHQ_TOOLS_CACHE", emptyCache.toString())))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Argo CD (argocd) is not built")
        .hasMessageContaining("tools/build-tools.sh argocd");
  }

  @Test
  void aBuiltBinaryPasses(@TempDir Path cache) throws Exception {
    // What build-tools.sh leaves: an executable where bin-path.sh looks.
    ProcessBuilder where =
        new ProcessBuilder(
            "bash",
            RealKube.repoRoot().resolve("tools/bin-path.sh").toString(),
            "--no-check",
            "argocd");
    where.environment().put("GITOPSHQ_TOOLS_CACHE", cache.toString());
    Process p = where.start();
    Path bin = Path.of(new String(p.getInputStream().readAllBytes(), UTF_8).strip());
    assertThat(p.waitFor()).isZero();
    assertThat(bin).startsWithRaw(cache);
    assertThat(bin.getParent().getFileName().toString()).isEqualTo("argocd-v3.6.1");
    Files.createDirectories(bin.getParent());
    Files.writeString(bin, "#!/bin/sh\n");
    bin.toFile().setExecutable(true);
    assertThatCode(
            () ->
                RealKube.requireArgoCdBuilt(
                    RealKube.repoRoot(), Map.of("GITOPSHQ_TOOLS_CACHE", cache.toString())))
        .doesNotThrowAnyException();
  }
}
