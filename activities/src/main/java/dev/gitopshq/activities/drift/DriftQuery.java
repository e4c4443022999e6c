package dev.gitopshq.activities.drift;

import java.time.Instant;
import java.util.UUID;

/**
 * Filters and keyset page of a cluster's findings, newest first.
 *
 * @param severity functional, cosmetic or null for both
 * @param state open, resolved or null for both
 */
public record DriftQuery(
    String severity,
    String namespace,
    String state,
    Instant afterDetectedAt,
    UUID afterId,
    int limit) {}
