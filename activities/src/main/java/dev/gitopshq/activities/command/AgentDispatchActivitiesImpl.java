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
 * Parks a command for its agent together with this activity's task token, nudges the gateway, and
 * returns without completing: the replica that receives the agent's result completes it.
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
}
