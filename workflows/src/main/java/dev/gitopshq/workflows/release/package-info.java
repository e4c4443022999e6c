/**
 * Releases, promotions and rollbacks: governed moves of rendered manifests into the branches the
 * runtime adapters watch.
 *
 * <p>A release captures main at a generated revision. Deploying it to an environment (its first
 * deploy, or a promotion to the next environment in the order) and rolling back are each a
 * deployment: the workflow asks OPA whether an environment is frozen ({@code gitopshq.freeze},
 * break-glass passes), then for a decision ({@code gitopshq.release}), waits in the shared approval
 * child workflow when the decision requires approvers, and finally writes one commit per
 * environment branch {@code deploy/<environment>}. Release deploys and promotions run as {@link
 * ReleaseWorkflow} ({@code deployment-{id}}), rollbacks as {@link RollbackWorkflow} ({@code
 * rollback-{releaseId}}).
 */
package dev.gitopshq.workflows.release;
