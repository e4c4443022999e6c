package dev.gitopshq.workflows.credential;

/** A change signalled to a running sync: why, and who caused it. */
public record SyncCause(String cause, String actor) {}
