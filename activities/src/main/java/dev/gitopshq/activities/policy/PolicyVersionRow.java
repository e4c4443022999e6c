package dev.gitopshq.activities.policy;

import java.time.Instant;

/** A version in a policy's history, without its text. */
public record PolicyVersionRow(int version, String createdBy, Instant createdAt, boolean active) {}
