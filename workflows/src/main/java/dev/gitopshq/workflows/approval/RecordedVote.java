package dev.gitopshq.workflows.approval;

/**
 * A vote as the workflow judged it.
 *
 * @param counted whether it counted toward the outcome
 * @param why when not counted: the reason (self-approval, not eligible, already voted)
 * @param atMillis workflow time of the vote
 */
public record RecordedVote(ApprovalVote vote, boolean counted, String why, long atMillis) {}
