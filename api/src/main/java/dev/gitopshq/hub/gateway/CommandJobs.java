package dev.gitopshq.hub.gateway;

import com.google.protobuf.Timestamp;
import dev.gitopshq.activities.command.CommandMapper;
import dev.gitopshq.activities.command.CommandRow;
import dev.gitopshq.activities.gateway.AgentJob;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.CommandResult;
import dev.gitopshq.agent.v1.CommandTypes;
import dev.gitopshq.agent.v1.ExecuteCommand;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.Target;
import dev.gitopshq.workflows.command.ExecutionResult;
import java.time.Clock;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commands as jobs: {@code ExecuteCommand} built from the command row when it is sent (a
 * resolve-drift command's desired manifest loaded from its drift finding then, so it never travels
 * through the workflow's history), {@code CommandResult} read into the workflow's {@link
 * ExecutionResult} and kept on the command.
 */
final class CommandJobs implements JobKind<ExecutionResult> {
  private static final Logger log = LoggerFactory.getLogger(CommandJobs.class);

  private final CommandMapper commands;
  private final Clock clock;
  private volatile Function<CommandRow, Optional<String>> manifests = c -> Optional.empty();

  CommandJobs(CommandMapper commands, Clock clock) {
    this.commands = commands;
    this.clock = clock;
  }

  void manifests(Function<CommandRow, Optional<String>> loader) {
    this.manifests = loader;
  }

  @Override
  public String name() {
    return AgentJob.KIND_COMMAND;
  }

  @Override
  public AgentMessage.PayloadCase answer() {
    return AgentMessage.PayloadCase.COMMAND_RESULT;
  }

  @Override
  public String ref(AgentMessage answer) {
    try {
      return UUID.fromString(answer.getCommandResult().getCommandId()).toString();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  @Override
  public Class<ExecutionResult> resultType() {
    return ExecutionResult.class;
  }

  @Override
  public HubMessage.Builder message(AgentJob job) {
    CommandRow c =
        commands
            .findById(job.orgId(), UUID.fromString(job.ref()))
            .orElseThrow(() -> new Refused("the command is gone; nothing was sent to the agent"));
    ExecuteCommand.Builder cmd =
        ExecuteCommand.newBuilder()
            .setCommandId(c.id().toString())
            .setType(c.type())
            .setTarget(
                Target.newBuilder()
                    .setNamespace(c.targetNamespace())
                    .setKind(c.targetKind())
                    .setName(c.targetName()))
            .putAllParams(c.params())
            .setRequestedBy(c.requesterName())
            .setBreakGlass(c.breakGlass());
    if (CommandTypes.RESOLVE_DRIFT.equals(c.type())) {
      cmd.setDesiredManifest(
          manifests
              .apply(c)
              .orElseThrow(
                  () -> new Refused("the drift finding is gone; nothing was sent to the agent")));
    }
    if (job.deadline() != null) {
      cmd.setDeadline(
          Timestamp.newBuilder()
              .setSeconds(job.deadline().getEpochSecond())
              .setNanos(job.deadline().getNano()));
    }
    return HubMessage.newBuilder().setExecuteCommand(cmd);
  }

  @Override
  public void sent(AgentJob job, HubMessage message, UUID clusterId) {
    ExecuteCommand c = message.getExecuteCommand();
    commands.markDispatched(job.orgId(), UUID.fromString(job.ref()), clock.instant());
    log.info(
        "command {} ({} {}/{}) sent to cluster {}",
        job.ref(),
        c.getType(),
        c.getTarget().getNamespace(),
        c.getTarget().getName(),
        clusterId);
  }

  @Override
  public ExecutionResult answered(AgentJob job, AgentMessage answer) {
    CommandResult result = answer.getCommandResult();
    ExecutionResult r =
        switch (result.getOutcome()) {
          case SUCCEEDED -> new ExecutionResult(true, result.getOutput(), "");
          case EXPIRED ->
              new ExecutionResult(
                  false,
                  result.getOutput(),
                  nonEmpty(result.getError(), "the deadline had passed; the agent did not run it"));
          case REFUSED ->
              new ExecutionResult(
                  false,
                  result.getOutput(),
                  nonEmpty(result.getError(), "the agent refused the command"));
          default ->
              new ExecutionResult(
                  false,
                  result.getOutput(),
                  nonEmpty(result.getError(), "the agent reported a failure"));
        };
    log.info("cluster {} reported command {}: {}", job.clusterId(), job.ref(), result.getOutcome());
    return keep(job, r);
  }

  @Override
  public ExecutionResult unanswered(AgentJob job, String reason) {
    return keep(job, new ExecutionResult(false, "", reason));
  }

  @Override
  public String expired(AgentJob job, boolean held) {
    return "the deadline passed before the agent could take the command; nothing was executed";
  }

  /** The report stays on the command too, whatever becomes of the workflow. */
  private ExecutionResult keep(AgentJob job, ExecutionResult r) {
    commands.recordReport(
        job.orgId(),
        UUID.fromString(job.ref()),
        r.output(),
        r.success() ? null : r.error(),
        clock.instant());
    return r;
  }

  private static String nonEmpty(String s, String fallback) {
    return s == null || s.isBlank() ? fallback : s;
  }
}
