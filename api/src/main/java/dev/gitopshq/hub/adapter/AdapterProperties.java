package dev.gitopshq.hub.adapter;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Runtime adapter wiring ({@code gitopshq.adapters.*}).
 *
 * @param interval how often the adapters the hub wires poll their branch
 *     (GITOPSHQ_ADAPTER_INTERVAL, 5 min; 10 s to 24 h): the hub also asks them to reconcile on
 *     every deployment commit, so this is the fallback
 * @param reconcileOnCommit whether a deployment asks the clusters' adapters to reconcile at once
 *     (GITOPSHQ_ADAPTER_RECONCILE_ON_COMMIT, true); off, they pick the commit up at their poll
 */
@ConfigurationProperties("gitopshq.adapters")
public record AdapterProperties(Duration interval, Boolean reconcileOnCommit) {
  public AdapterProperties {
    if (interval == null) {
      interval = Duration.ofMinutes(5);
    }
    if (reconcileOnCommit == null) {
      reconcileOnCommit = true;
    }
    if (interval.compareTo(Duration.ofSeconds(10)) < 0
        || interval.compareTo(Duration.ofHours(24)) > 0) {
      throw new IllegalArgumentException("GITOPSHQ_ADAPTER_INTERVAL must be from 10s to 24h");
    }
  }
}
