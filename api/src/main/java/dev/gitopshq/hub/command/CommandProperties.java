package dev.gitopshq.hub.command;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Command timing and notifications ({@code gitopshq.commands.*}, {@code gitopshq.notify.*}).
 *
 * @param approvalTimeout how long an approval may stay open (GITOPSHQ_APPROVAL_TIMEOUT, 24 h)
 * @param agentWait how long an approved command waits for a disconnected agent
 *     (GITOPSHQ_COMMAND_AGENT_WAIT, 15 min)
 * @param executionTimeout how long the agent has to report once it has the command
 *     (GITOPSHQ_COMMAND_EXECUTION_TIMEOUT, 5 min)
 */
@ConfigurationProperties("gitopshq.commands")
public record CommandProperties(
    Duration approvalTimeout, Duration agentWait, Duration executionTimeout) {}
