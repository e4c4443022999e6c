package dev.gitopshq.activities.delivery;

import java.time.Instant;
import java.util.UUID;

/**
 * An organization environment (a stage such as dev, staging, production).
 *
 * @param verifyTimeoutSeconds how long a deployment waits for the environment's Flux and Argo CD
 *     clusters to run its commit before it ends degraded; null: deployments are not verified
 */
public record EnvironmentRow(
    UUID id,
    UUID orgId,
    String name,
    int position,
    String description,
    Instant createdAt,
    Integer verifyTimeoutSeconds) {}
