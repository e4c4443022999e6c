/**
 * The hub's commands: {@code CommandRunner} picks the action for a command's type, runs it on the
 * cluster and reports a {@code CommandResult}. The agent's job runner ({@code
 * dev.gitopshq.agent.jobs}) decides whether it runs: the type's capability, the deadline, each
 * command id at most once, one command at a time.
 */
package dev.gitopshq.agent.commands;
