package dev.gitopshq.activities.cluster;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A registered cluster as stored, plus one derived fact: whether an unused, unexpired registration
 * token exists for it ({@code registrationOpen}). The connection status shown to users is computed
 * from these fields by {@link ClusterStatus}.
 */
public record ClusterRow(
    UUID id,
    UUID orgId,
    String name,
    String displayName,
    String provider,
    String region,
    String environment,
    Map<String, String> labels,
    String agentVersion,
    List<String> capabilities,
    int heartbeatIntervalSeconds,
    Instant registeredAt,
    Instant connectedAt,
    String connectedReplica,
    Instant lastSeenAt,
    String createdBy,
    Instant createdAt,
    Instant updatedAt,
    boolean registrationOpen) {}
