package dev.gitopshq.activities.drift;

import java.time.Instant;
import java.util.UUID;

/**
 * One comparison of a cluster's desired objects with the live ones.
 *
 * @param trigger deployment, interval or manual
 * @param status pending, running, completed or failed
 */
public record DriftCheckRow(
    UUID id,
    UUID orgId,
    UUID clusterId,
    String trigger,
    String requestedBy,
    String status,
    Instant requestedAt,
    Instant startedAt,
    Instant finishedAt,
    int objects,
    int drifted,
    int opened,
    int resolved,
    String error) {}
