/**
 * Direct deploy (capability {@code direct.deploy}): {@code ApplyPlan} decides what to apply, where,
 * and what to prune without touching the cluster; {@code DirectDeployer} checks the fence and
 * ownership, applies with server-side apply, prunes and waits for {@code RolloutHealth}. The job
 * runner ({@code dev.gitopshq.agent.jobs}) runs one apply at a time, each apply id at most once
 * while the agent lives, never after its deadline.
 */
package dev.gitopshq.agent.deploy;
