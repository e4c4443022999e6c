package dev.gitopshq.hub.release;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Release timing ({@code gitopshq.releases.*}).
 *
 * @param approvalTimeout how long a release, promotion or rollback waits for approvers
 *     (GITOPSHQ_RELEASE_APPROVAL_TIMEOUT, else GITOPSHQ_APPROVAL_TIMEOUT, 24 h)
 * @param directDispatchTimeout how long the agent of a direct-mode cluster has to take an apply
 *     before the deployment fails with nothing applied (GITOPSHQ_DIRECT_DISPATCH_TIMEOUT, 10 min)
 * @param directHealthTimeout how long the agent waits for rollout health after a direct apply
 *     (GITOPSHQ_DIRECT_HEALTH_TIMEOUT, 5 min, at most 15 min)
 */
@ConfigurationProperties("gitopshq.releases")
public record ReleaseProperties(
    Duration approvalTimeout, Duration directDispatchTimeout, Duration directHealthTimeout) {
  public ReleaseProperties {
    if (approvalTimeout == null) {
      approvalTimeout = Duration.ofHours(24);
    }
    if (directDispatchTimeout == null) {
      directDispatchTimeout = Duration.ofMinutes(10);
    }
    if (directHealthTimeout == null) {
      directHealthTimeout = Duration.ofMinutes(5);
    }
    if (directDispatchTimeout.isNegative()
        || directDispatchTimeout.isZero()
        || directDispatchTimeout.compareTo(Duration.ofMinutes(14)) > 0) {
      throw new IllegalArgumentException(
          "GITOPSHQ_DIRECT_DISPATCH_TIMEOUT must be more than 0 and at most 14 minutes");
    }
    if (directHealthTimeout.isNegative()
        || directHealthTimeout.compareTo(Duration.ofMinutes(15)) > 0) {
      throw new IllegalArgumentException(
          "GITOPSHQ_DIRECT_HEALTH_TIMEOUT must be from 0 to 15 minutes");
    }
  }
}
