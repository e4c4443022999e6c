package dev.gitopshq.workflows;

import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/**
 * The options every workflow uses for its store-side activities (PostgreSQL writes, audit
 * entries): short attempts, retried with backoff until the database answers.
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
}
