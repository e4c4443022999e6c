package dev.gitopshq.agent.link;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff with full jitter: the n-th delay (counting from 0) is drawn uniformly from
 * {@code [0, min(cap, base * 2^n)]}, with a small floor so a run of unlucky draws cannot turn into
 * a tight loop. Full jitter spreads a fleet of agents that lost the hub at the same moment, so a
 * restarted hub is not hit by all of them at once.
 *
 * <p>Not thread-safe; each retry loop owns one.
 */
public final class Backoff {

  private static final Duration FLOOR = Duration.ofMillis(100);

  private final Duration base;
  private final Duration cap;
  private final DoubleSupplier random;
  private int attempt;

  /**
   * Creates a backoff.
   *
   * @param base the first ceiling, doubled on every attempt
   * @param cap the largest ceiling
   * @param random returns values in {@code [0, 1)}
   */
  public Backoff(Duration base, Duration cap, DoubleSupplier random) {
    this.base = base;
    this.cap = cap;
    this.random = random;
  }

  /** The delay before the next attempt; each call moves to the next attempt. */
  public Duration next() {
    // Doubling stops once it passes the cap, so the shift never overflows.
    long ceiling = cap.toMillis();
    if (attempt < 31) {
      ceiling = Math.min(ceiling, base.toMillis() << attempt);
    }
    attempt++;
    long delay = (long) (random.getAsDouble() * (ceiling + 1));
    return Duration.ofMillis(Math.max(FLOOR.toMillis(), Math.min(delay, ceiling)));
  }

  /** Starts over from the base delay, after a connection that proved healthy. */
  public void reset() {
    attempt = 0;
  }

  /** How many delays have been handed out since the last reset. */
  public int attempts() {
    return attempt;
  }
}
