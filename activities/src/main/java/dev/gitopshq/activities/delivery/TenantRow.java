package dev.gitopshq.activities.delivery;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/** An organization tenant (a business customer, region, ...). */
public record TenantRow(
    UUID id,
    UUID orgId,
    String name,
    String displayName,
    Map<String, String> labels,
    Instant createdAt) {}
