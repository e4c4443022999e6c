package dev.gitopshq.activities.release;

import java.time.Instant;
import java.util.UUID;

/**
 * What one cluster ran of a deployment, as its runtime adapter reported it when the hub last
 * looked: the evidence that what was approved is what runs.
 *
 * @param verified whether it ran the deployment's commit, in sync and healthy
 * @param deliverer the Flux Kustomizations or Argo CD Applications that deliver it
 * @param verifiedAt when the hub first saw it run the commit; null while it has not
 */
public record DeploymentClusterRow(
    UUID orgId,
    UUID deploymentId,
    String environment,
    UUID clusterId,
    String cluster,
    String mode,
    boolean verified,
    String deliverer,
    String revision,
    String health,
    String reason,
    Instant observedAt,
    Instant verifiedAt) {}
