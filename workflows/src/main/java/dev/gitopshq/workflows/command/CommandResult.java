package dev.gitopshq.workflows.command;

import dev.gitopshq.workflows.approval.ApprovalResult;
import dev.gitopshq.workflows.governance.Decision;

/**
 * How a command ended.
 *
 * @param decision the policy decision, or null when the command ended before one
 * @param approval the approval's result, when one was needed
 */
public record CommandResult(
    CommandStatus status, String detail, Decision decision, ApprovalResult approval) {}
