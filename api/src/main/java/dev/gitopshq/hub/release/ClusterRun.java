package dev.gitopshq.hub.release;

import dev.gitopshq.activities.release.DeploymentClusterRow;
import java.time.Instant;

/**
 * What one Flux or Argo CD cluster ran of a deployment when the hub last looked, as the
 * deployment's answer and the release's evidence document show it.
 *
 * @param verified whether it ran the deployment's commit, in sync and healthy
 * @param deliverer the Flux Kustomizations ({@code flux:<ns>/<name>}) or Argo CD Applications
 * @param revision the commit it ran
 * @param reason why it is not verified
 * @param verifiedAt when the hub first saw it run the commit
 */
public record ClusterRun(
    String environment,
    String cluster,
    String mode,
    boolean verified,
    String deliverer,
    String revision,
    String health,
    String reason,
    Instant observedAt,
    Instant verifiedAt) {
  public static ClusterRun of(DeploymentClusterRow r) {
    return new ClusterRun(
        r.environment(),
        r.cluster(),
        r.mode(),
        r.verified(),
        r.deliverer(),
        r.revision(),
        r.health(),
        r.reason(),
        r.observedAt(),
        r.verifiedAt());
  }
}
