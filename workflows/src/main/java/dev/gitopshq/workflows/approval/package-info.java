/**
 * The approval sub-workflow: one reusable child workflow that collects votes for a subject (a
 * command, a break-glass review, later releases and rollbacks) until enough distinct eligible
 * approvers approve, an eligible approver rejects, it is cancelled, or it expires. The workflow id
 * is {@code approval-{approvalId}}; the inbox lists its open instances.
 */
package dev.gitopshq.workflows.approval;
