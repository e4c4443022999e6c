package dev.gitopshq.workflows;

import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;

/**
 * The options every workflow uses for its store-side activities (PostgreSQL writes, audit entries):
 * short attempts, retried with backoff until the database answers.
 */
public final class StoreActivities {
  private StoreActivities() {}

  public static ActivityOptions options() {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(30))
        .setRetryOptions(
            RetryOptions.newBuilder()
                .setInitialInterval(Duration.ofSeconds(1))
                .setBackoffCoefficient(2.0)
                .setMaximumInterval(Duration.ofMinutes(1))
                .build())
        .build();
  }

  /**
   * The same steps as local activities: run by the worker that holds the workflow task, with no
   * round trip through Temporal's task queues, and retried with the same backoff. Retries longer
   * than a second wait on a workflow timer, so they show in the history and survive a restart.
   */
  public static LocalActivityOptions localOptions() {
    return LocalActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(30))
        .setLocalRetryThreshold(Duration.ofSeconds(1))
        .setRetryOptions(options().getRetryOptions())
        .build();
  }

  /** How long a notification webhook is retried before it is given up (and logged). */
  public static final Duration NOTIFY_TOTAL = Duration.ofHours(1);

  /** Options for notification activities: retried with backoff for up to {@link #NOTIFY_TOTAL}. */
  public static ActivityOptions notifyOptions() {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(15))
        .setScheduleToCloseTimeout(NOTIFY_TOTAL)
        .setRetryOptions(
            RetryOptions.newBuilder()
                .setInitialInterval(Duration.ofSeconds(2))
                .setBackoffCoefficient(2.0)
                .setMaximumInterval(Duration.ofMinutes(5))
                .build())
        .build();
  }

  /** The message a person should read from a failed activity: the application failure's own. */
  public static String reason(ActivityFailure e) {
    Throwable cause = e.getCause();
    if (cause instanceof ApplicationFailure af && af.getOriginalMessage() != null) {
      return af.getOriginalMessage();
    }
    return cause == null ? e.getMessage() : cause.getMessage();
  }
}
