package dev.gitopshq.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.workflows.agentwatch.AgentWatchWorkflowImpl;
import dev.gitopshq.workflows.approval.ApprovalWorkflowImpl;
import dev.gitopshq.workflows.command.CommandWorkflowImpl;
import dev.gitopshq.workflows.delivery.DeliveryGenerationWorkflowImpl;
import dev.gitopshq.workflows.registration.RegistrationWorkflowImpl;
import dev.gitopshq.workflows.release.ReleaseWorkflowImpl;
import dev.gitopshq.workflows.release.RollbackWorkflowImpl;
import dev.gitopshq.workflows.rotation.ScheduledRotationWorkflowImpl;
import dev.gitopshq.workflows.rotation.TokenRotationWorkflowImpl;
import io.temporal.testing.WorkflowReplayer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
    WorkflowReplayer.replayWorkflowExecution(
        Files.readString(history),
        CommandWorkflowImpl.class,
        ApprovalWorkflowImpl.class,
        RegistrationWorkflowImpl.class,
        AgentWatchWorkflowImpl.class,
        TokenRotationWorkflowImpl.class,
        ScheduledRotationWorkflowImpl.class,
        DeliveryGenerationWorkflowImpl.class,
        ReleaseWorkflowImpl.class,
        RollbackWorkflowImpl.class);
  }
}
