/**
 * Releases, deployments and deliveries in PostgreSQL, and the deploy branches in the hosted
 * repositories: the activities behind {@code dev.gitopshq.workflows.release}.
 *
 * <p>{@link dev.gitopshq.activities.release.DeployWriter} is the only writer of {@code
 * deploy/<environment>} branches; {@link dev.gitopshq.activities.release.RollbackScope} says what a
 * rollback restores; {@link dev.gitopshq.activities.release.DeploymentChanges} says, before the
 * decision, what a deployment would change there object by object (the {@code changes} of the
 * {@code gitopshq.release} input).
 */
package dev.gitopshq.activities.release;
