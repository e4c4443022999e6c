/**
 * Runs the hub's commands: checks the capability and the deadline, runs each command id at most
 * once, one command at a time, and reports a {@code CommandResult}.
 */
package dev.gitopshq.agent.commands;
