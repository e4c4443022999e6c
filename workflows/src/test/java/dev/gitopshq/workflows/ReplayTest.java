package dev.gitopshq.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays recorded histories (src/test/resources/histories) against today's workflow code. A change
 * that would break executions already running in production (non-determinism) fails here.
 */
class ReplayTest {
  /**
   * A replay only checks determinism; on a loaded machine a cold JVM's first workflow task can take
   * longer than Temporal's 1-second deadlock detector allows, which is not what this test is about.
   */
  private static final long DEADLOCK_DETECTION_MILLIS = 30_000;

  private static TestWorkflowEnvironment env;
  private static Worker worker;

  @BeforeAll
  static void worker() {
    env = TestWorkflowEnvironment.newInstance();
    worker =
        env.newWorker(
            "replay",
            WorkerOptions.newBuilder()
                .setDefaultDeadlockDetectionTimeout(DEADLOCK_DETECTION_MILLIS)
                .build());
    worker.registerWorkflowImplementationTypes(Workflows.implementations());
  }

  @AfterAll
  static void close() {
    env.close();
  }

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
    WorkflowReplayer.replayWorkflowExecution(
        WorkflowExecutionHistory.fromJson(Files.readString(history)), worker);
  }
}
