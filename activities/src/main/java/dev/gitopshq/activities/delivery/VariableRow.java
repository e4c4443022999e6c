package dev.gitopshq.activities.delivery;

import java.time.Instant;
import java.util.UUID;

/**
 * An HQ variable with the names of what it is scoped to.
 *
 * @param scope org, project, environment, tenant or service
 */
public record VariableRow(
    UUID id,
    UUID orgId,
    String scope,
    UUID projectId,
    UUID environmentId,
    String environment,
    UUID tenantId,
    String tenant,
    String service,
    String key,
    String value,
    String updatedBy,
    Instant updatedAt) {}
