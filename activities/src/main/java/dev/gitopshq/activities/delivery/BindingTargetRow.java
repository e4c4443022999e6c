package dev.gitopshq.activities.delivery;

import java.util.UUID;

/** A tenant-environment pair a binding applies to, with the names. */
public record BindingTargetRow(
    UUID orgId,
    UUID bindingId,
    UUID projectId,
    UUID tenantId,
    String tenant,
    UUID environmentId,
    String environment) {}
