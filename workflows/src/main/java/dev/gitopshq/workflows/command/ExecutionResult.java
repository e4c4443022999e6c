package dev.gitopshq.workflows.command;

/** What the agent reported. */
public record ExecutionResult(boolean success, String output, String error) {}
