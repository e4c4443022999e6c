package dev.gitopshq.workflows.release;

/**
 * How a direct apply ended on one cluster; the per-object results stay in PostgreSQL.
 *
 * @param success every object applied and healthy, every stale one pruned
 * @param error why not, for people (empty on success)
 * @param objects how many per-object results the agent reported
 */
public record DirectOutcome(boolean success, String error, int objects) {}
