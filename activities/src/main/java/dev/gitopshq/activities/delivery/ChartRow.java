package dev.gitopshq.activities.delivery;

import java.time.Instant;
import java.util.UUID;

/** A chart of the organization's registry; its versions are {@link ChartVersionRow}s. */
public record ChartRow(UUID id, UUID orgId, String name, String description, Instant createdAt) {}
