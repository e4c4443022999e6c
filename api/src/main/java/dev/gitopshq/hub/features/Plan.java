package dev.gitopshq.hub.features;

import java.util.Locale;

/**
 * The plans an organization can be on, in ascending order: each holds every gate of the ones below.
 */
public enum Plan {
  FREE,
  PRO,
  ENTERPRISE;

  /** The name the API, the {@code organizations.plan} column and {@code GITOPSHQ_PLAN} use. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** True when this plan opens {@code feature}. */
  public boolean includes(Feature feature) {
    return compareTo(feature.minimum()) >= 0;
  }

  /**
   * The plan with this wire name. A name this version does not know is the lowest plan, so a typo
   * in a plan never opens a gate.
   */
  public static Plan of(String wireName) {
    for (Plan p : values()) {
      if (p.wireName().equals(wireName)) {
        return p;
      }
    }
    return FREE;
  }
}
