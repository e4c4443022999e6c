package dev.gitopshq.activities.drift;

import java.util.UUID;

/** A project environment that delivers to a cluster. */
public record DriftBindingRow(UUID projectId, String project, String environment) {}
