package dev.gitopshq.hub.release;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Release timing ({@code gitopshq.releases.*}).
 *
 * @param approvalTimeout how long a release, promotion or rollback waits for approvers
 *     (GITOPSHQ_RELEASE_APPROVAL_TIMEOUT, else GITOPSHQ_APPROVAL_TIMEOUT, 24 h)
 */
@ConfigurationProperties("gitopshq.releases")
public record ReleaseProperties(Duration approvalTimeout) {
  public ReleaseProperties {
    if (approvalTimeout == null) {
      approvalTimeout = Duration.ofHours(24);
    }
  }
}
