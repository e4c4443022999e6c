package dev.gitopshq.activities.command;

import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.workflows.command.AgentDispatchActivities;
import dev.gitopshq.workflows.command.CommandSpec;
import dev.gitopshq.workflows.command.ExecutionResult;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import java.time.Clock;
import java.time.Instant;
import java.util.UUID;

/**
 * Parks a command for its agent and nudges the gateway. {@link #park} (a local activity) leaves the
 * report to come back as a signal; {@link #execute} parks it with its task token and returns
 * without completing, and the replica that receives the agent's result completes it.
 */
public class AgentDispatchActivitiesImpl implements AgentDispatchActivities {
  private final CommandMapper commands;
  private final AgentGatewayPort gateway;
  private final Clock clock;

  public AgentDispatchActivitiesImpl(
      CommandMapper commands, AgentGatewayPort gateway, Clock clock) {
    this.commands = commands;
    this.gateway = gateway;
    this.clock = clock;
  }

  @Override
  public ExecutionResult execute(CommandSpec spec, long deadlineEpochMillis) {
    ActivityExecutionContext ctx = Activity.getExecutionContext();
    UUID org = UUID.fromString(spec.orgId());
    UUID cluster = UUID.fromString(spec.clusterId());
    commands.queue(
        org,
        UUID.fromString(spec.commandId()),
        ctx.getTaskToken(),
        Instant.ofEpochMilli(deadlineEpochMillis),
        clock.instant());
    ctx.doNotCompleteOnReturn();
    gateway.commandQueued(org, cluster);
    return null;
  }

  @Override
  public void park(CommandSpec spec, long deadlineEpochMillis) {
    UUID org = UUID.fromString(spec.orgId());
    commands.park(
        org,
        UUID.fromString(spec.commandId()),
        Instant.ofEpochMilli(deadlineEpochMillis),
        clock.instant());
    // Also after a repeat: a command parked by a crashed replica may still wait for a stream.
    gateway.commandQueued(org, UUID.fromString(spec.clusterId()));
  }
}
