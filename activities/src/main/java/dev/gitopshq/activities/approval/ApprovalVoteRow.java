package dev.gitopshq.activities.approval;

import java.time.Instant;

/** One vote on an inbox item, counted or not. */
public record ApprovalVoteRow(
    int idx,
    String memberId,
    String memberName,
    boolean approve,
    String comment,
    boolean counted,
    String why,
    Instant at) {}
