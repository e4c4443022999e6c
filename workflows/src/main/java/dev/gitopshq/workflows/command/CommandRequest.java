package dev.gitopshq.workflows.command;

/** The command workflow's input. */
public record CommandRequest(CommandSpec spec, CommandTimeouts timeouts) {}
