package dev.gitopshq.activities.release;

/** An object a direct apply placed on a cluster (table {@code direct_applied_objects}). */
public record DirectAppliedObjectRow(
    String tenant, String apiVersion, String kind, String namespace, String name) {}
