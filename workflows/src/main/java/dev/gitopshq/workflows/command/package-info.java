/**
 * A command on a cluster (sync, rollback, restart, scale): capability check, the freeze check (a
 * freeze window that holds the command's type ends it {@code frozen} unless it is break-glass), OPA
 * decision, then auto-approve, approval through the approval child workflow, break-glass, or
 * rejection; then execution on the agent, completed asynchronously when the agent reports. The
 * workflow id is the command id, so a repeated request never runs twice.
 */
package dev.gitopshq.workflows.command;
