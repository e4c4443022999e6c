package dev.gitopshq.activities.command;

import java.time.Instant;

/** One entry of a command's timeline. */
public record CommandEventRow(int seq, Instant at, String status, String actor, String detail) {}
