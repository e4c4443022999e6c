package dev.gitopshq.workflows.command;

/**
 * How long each wait may last.
 *
 * @param approvalSeconds before a pending approval expires (default 24 h)
 * @param agentWaitSeconds how long an approved command waits for a disconnected agent
 * @param executionSeconds how long the agent has to report once it has the command
 */
public record CommandTimeouts(long approvalSeconds, long agentWaitSeconds, long executionSeconds) {}
