package dev.gitopshq.activities.drift;

import java.util.UUID;

/**
 * A project environment that delivers to a cluster.
 *
 * @param direct whether the cluster's agent applies it (delivery mode {@code direct}), so its
 *     objects carry the direct apply's labels
 */
public record DriftBindingRow(UUID projectId, String project, String environment, boolean direct) {}
