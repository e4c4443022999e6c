package dev.gitopshq.activities.adapter;

import java.util.UUID;

/**
 * A project environment a cluster delivers through a runtime adapter ({@code flux} or {@code
 * argocd}).
 */
public record AdapterBindingRow(UUID projectId, String project, String environment, String mode) {}
