package dev.gitopshq.activities.command;

import java.time.Instant;
import java.util.UUID;

/**
 * Filters for a cluster's command history; null means any. Newest first, continuing after the
 * cursor ({@code afterCreatedAt}, {@code afterId}).
 */
public record CommandQuery(
    String type,
    String status,
    Instant from,
    Instant to,
    Instant afterCreatedAt,
    UUID afterId,
    int limit) {}
