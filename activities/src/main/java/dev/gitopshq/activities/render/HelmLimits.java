package dev.gitopshq.activities.render;

import java.time.Duration;
import java.util.concurrent.Semaphore;

/**
 * Bounds on the hub's in-process Helm renders.
 *
 * @param timeout the longest one render may take before its unit fails
 * @param maxOutputChars the most text one render may print
 * @param slots how many renders may run at once in this JVM, counting renders that ran over and are
 *     still in Helm's Go code
 * @param permits the slots, shared by every renderer with these limits
 */
record HelmLimits(Duration timeout, int maxOutputChars, int slots, Semaphore permits) {
  /** 30 s, 16 Mi characters, 4 renders at once. */
  static final HelmLimits DEFAULT = of(Duration.ofSeconds(30), 16 * 1024 * 1024, 4);

  static HelmLimits of(Duration timeout, int maxOutputChars, int slots) {
    return new HelmLimits(timeout, maxOutputChars, slots, new Semaphore(slots));
  }
}
