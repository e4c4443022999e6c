package dev.gitopshq.activities.delivery;

import java.util.UUID;

/** An environment a project delivers to, with the organization environment's name and position. */
public record ProjectEnvironmentRow(
    UUID orgId,
    UUID projectId,
    UUID environmentId,
    String environment,
    int position,
    String namespacePattern,
    boolean createNamespace) {}
