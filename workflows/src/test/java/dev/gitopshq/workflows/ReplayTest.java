package dev.gitopshq.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.testing.WorkflowReplayer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays recorded histories (src/test/resources/histories) against today's workflow code. A change
 * that would break executions already running in production (non-determinism) fails here.
 */
class ReplayTest {
  static Stream<Path> histories() throws IOException {
    List<Path> files;
    try (Stream<Path> s = Files.list(Histories.DIR)) {
      files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    }
    assertThat(files).as("recorded histories").hasSizeGreaterThanOrEqualTo(8);
    return files.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("histories")
  void replaysWithoutNonDeterminism(Path history) throws Exception {
    Class<?>[] all = Workflows.implementations();
    WorkflowReplayer.replayWorkflowExecution(
        Files.readString(history), all[0], Arrays.copyOfRange(all, 1, all.length));
  }
}
