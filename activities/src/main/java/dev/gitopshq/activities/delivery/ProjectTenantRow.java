package dev.gitopshq.activities.delivery;

import java.util.UUID;

/** An organization tenant linked to a project. */
public record ProjectTenantRow(UUID orgId, UUID projectId, UUID tenantId, String tenant) {}
