package dev.gitopshq.activities.release;

import java.util.UUID;

/**
 * A cluster that delivers an environment of a project through a runtime adapter.
 *
 * @param mode {@code flux} or {@code argocd}
 * @param timeoutSeconds the environment's {@code verify_timeout_s}
 */
public record RuntimeTargetRow(
    String environment,
    int position,
    UUID clusterId,
    String cluster,
    String mode,
    int timeoutSeconds) {}
