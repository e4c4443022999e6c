package dev.gitopshq.activities.release;

import java.time.Instant;

/** One entry of a deployment's timeline. */
public record DeploymentEventRow(int seq, Instant at, String status, String actor, String detail) {}
