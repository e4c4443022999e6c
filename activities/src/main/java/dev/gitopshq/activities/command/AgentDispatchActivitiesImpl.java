package dev.gitopshq.activities.command;

import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.activities.gateway.AgentJob;
import dev.gitopshq.activities.gateway.AgentJobMapper;
import dev.gitopshq.workflows.command.AgentDispatchActivities;
import dev.gitopshq.workflows.command.CommandSpec;
import dev.gitopshq.workflows.command.ExecutionResult;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import java.time.Clock;
import java.time.Instant;
import java.util.UUID;

/**
 * Parks a command as a job for its agent ({@code agent_jobs}) and nudges the gateway. {@link #park}
 * (a local activity) leaves the report to come back as the workflow's {@code reported} signal;
 * {@link #execute} parks it with its task token and returns without completing, and the replica
 * that receives the agent's result completes it.
 */
public class AgentDispatchActivitiesImpl implements AgentDispatchActivities {
  /** The command workflow's signal that takes the agent's report (CommandWorkflow#reported). */
  static final String REPORTED = "reported";

  private final CommandMapper commands;
  private final AgentJobMapper jobs;
  private final AgentGatewayPort gateway;
  private final Clock clock;

  public AgentDispatchActivitiesImpl(
      CommandMapper commands, AgentJobMapper jobs, AgentGatewayPort gateway, Clock clock) {
    this.commands = commands;
    this.jobs = jobs;
    this.gateway = gateway;
    this.clock = clock;
  }

  @Override
  public ExecutionResult execute(CommandSpec spec, long deadlineEpochMillis) {
    ActivityExecutionContext ctx = Activity.getExecutionContext();
    park(spec, deadlineEpochMillis, ctx.getTaskToken(), null);
    ctx.doNotCompleteOnReturn();
    return null;
  }

  @Override
  public void park(CommandSpec spec, long deadlineEpochMillis) {
    // The command's workflow id is its id.
    park(spec, deadlineEpochMillis, null, spec.commandId());
  }

  private void park(CommandSpec spec, long deadlineEpochMillis, byte[] token, String workflowId) {
    UUID org = UUID.fromString(spec.orgId());
    UUID cluster = UUID.fromString(spec.clusterId());
    UUID id = UUID.fromString(spec.commandId());
    Instant deadline = Instant.ofEpochMilli(deadlineEpochMillis);
    Instant now = clock.instant();
    commands.park(org, id, deadline, now);
    jobs.park(
        UUID.randomUUID(),
        org,
        cluster,
        AgentJob.KIND_COMMAND,
        id.toString(),
        token,
        workflowId,
        workflowId == null ? null : REPORTED,
        deadline,
        now);
    // Also after a repeat: a command parked by a crashed replica may still wait for a stream.
    gateway.commandQueued(org, cluster);
  }
}
