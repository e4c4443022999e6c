package dev.gitopshq.hub.gateway;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The bounded wait of a live request for an agent whose stream was lost a moment ago (its replica
 * died, or the stream dropped): every {@link #EVERY} it tries again, until it gets through or its
 * deadline passes. It sleeps on the thread that asks, holding nothing (no database connection, no
 * lock) in between.
 */
final class ReconnectWait {
  /** How often a waiting request looks again. */
  static final Duration EVERY = Duration.ofMillis(200);

  /** How a wait sleeps (the tests' clock moves instead). */
  interface Sleeper {
    void sleep(long millis) throws InterruptedException;
  }

  private final Duration max;
  private final Clock clock;
  private final Sleeper sleeper;

  ReconnectWait(Duration max, Clock clock, Sleeper sleeper) {
    this.max = max == null || max.isNegative() ? Duration.ZERO : max;
    this.clock = clock;
    this.sleeper = sleeper;
  }

  /** The longest a request waits; zero: it never does. */
  Duration max() {
    return max;
  }

  boolean enabled() {
    return !max.isZero();
  }

  /** The deadline of a wait that starts now. */
  Instant deadline() {
    return clock.instant().plus(max);
  }

  /** Whether {@code until} is still ahead. */
  boolean before(Instant until) {
    return clock.instant().isBefore(until);
  }

  /**
   * Sleeps {@link #EVERY}, then calls {@code attempt}, again and again until it gives an answer or
   * {@code until} has passed (the last attempt is made at the deadline).
   *
   * @return the first answer; empty when none came by {@code until}, or the thread was interrupted
   */
  <T> Optional<T> until(Instant until, Supplier<Optional<T>> attempt) {
    while (true) {
      Instant now = clock.instant();
      if (!now.isBefore(until)) {
        return Optional.empty();
      }
      long left = Duration.between(now, until).toMillis();
      try {
        sleeper.sleep(Math.max(1, Math.min(EVERY.toMillis(), left)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
      Optional<T> answer = attempt.get();
      if (answer.isPresent()) {
        return answer;
      }
    }
  }
}
