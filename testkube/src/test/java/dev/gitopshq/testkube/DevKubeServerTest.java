package dev.gitopshq.testkube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class DevKubeServerTest {

  @Test
  void parsesKubeconfigAndPortInBothSpellings() {
    assertThat(
            DevKubeServer.Arguments.parse(
                new String[] {"--kubeconfig", "/tmp/k", "--port", "6443"}))
        .isEqualTo(new DevKubeServer.Arguments(Path.of("/tmp/k"), 6443));
    assertThat(DevKubeServer.Arguments.parse(new String[] {"--kubeconfig=/tmp/k"}))
        .isEqualTo(new DevKubeServer.Arguments(Path.of("/tmp/k"), 0));
  }

  @Test
  void rejectsMissingKubeconfigBadPortAndUnknownArguments() {
    assertThatThrownBy(() -> DevKubeServer.Arguments.parse(new String[] {"--port", "1"}))
        .hasMessageContaining("--kubeconfig");
    assertThatThrownBy(
            () ->
                DevKubeServer.Arguments.parse(
                    new String[] {"--kubeconfig", "k", "--port", "70000"}))
        .hasMessageContaining("--port");
    assertThatThrownBy(
            () -> DevKubeServer.Arguments.parse(new String[] {"--kubeconfig", "k", "-x"}))
        .hasMessageContaining("unknown argument -x");
  }
}
