package dev.gitopshq.hub.evidence;

import dev.gitopshq.workflows.command.CommandRequest;
import dev.gitopshq.workflows.command.CommandResult;
import dev.gitopshq.workflows.command.CommandStatus;
import dev.gitopshq.workflows.command.CommandWorkflow;
import dev.gitopshq.workflows.command.ExecutionResult;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * A deliberately different CommandWorkflow: it starts with a timer the recorded histories never
 * had, so replaying a real command's history against it must diverge.
 */
public class DivergentCommandWorkflow implements CommandWorkflow {
  @Override
  public CommandResult run(CommandRequest request) {
    Workflow.sleep(Duration.ofMinutes(5));
    return null;
  }

  @Override
  public void cancel(String by) {}

  @Override
  public void reported(ExecutionResult result) {}

  @Override
  public CommandStatus status() {
    return CommandStatus.pending;
  }
}
