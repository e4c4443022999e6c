package dev.gitopshq.activities.delivery;

import java.time.Instant;
import java.util.UUID;

/** An organization environment (a stage such as dev, staging, production). */
public record EnvironmentRow(
    UUID id, UUID orgId, String name, int position, String description, Instant createdAt) {}
