/**
 * Releases, deployments and deliveries in PostgreSQL, and the deploy branches in the hosted
 * repositories: the activities behind {@code dev.gitopshq.workflows.release}.
 *
 * <p>{@link dev.gitopshq.activities.release.DeployWriter} is the only writer of {@code
 * deploy/<environment>} branches; {@link dev.gitopshq.activities.release.RollbackScope} says what a
 * rollback restores.
 */
package dev.gitopshq.activities.release;
