package dev.gitopshq.workflows.adapter;

/**
 * What one wiring did.
 *
 * @param wired bindings the agent wired
 * @param failed bindings it could not wire (the reason is on each binding)
 * @param removed adapter objects it removed
 * @param skipped why nothing was sent (the cluster is manual, the agent lacks adapter.wire), or
 *     empty
 */
public record WiringOutcome(int wired, int failed, int removed, String skipped) {}
