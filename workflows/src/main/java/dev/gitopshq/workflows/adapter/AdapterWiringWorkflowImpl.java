package dev.gitopshq.workflows.adapter;

import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Runs the wiring activity until no change is left waiting. A round in which the agent could not
 * wire every binding (the adapter's CRDs not installed yet, RBAC) is tried again after a backoff
 * that doubles from 30 s to 10 min, or at once when a change arrives: the cluster's adapter objects
 * are kept, not made once.
 */
public class AdapterWiringWorkflowImpl implements AdapterWiringWorkflow {
  /** How many rounds one run does before it goes on in a new run (a short history). */
  static final int MAX_ROUNDS = 20;

  static final Duration FIRST_RETRY = Duration.ofSeconds(30);
  static final Duration MAX_RETRY = Duration.ofMinutes(10);

  private final AdapterWiringActivities activities =
      Workflow.newActivityStub(
          AdapterWiringActivities.class,
          ActivityOptions.newBuilder()
              .setStartToCloseTimeout(Duration.ofMinutes(2))
              // The agent may be away for a while; its reconnect starts a new wiring anyway.
              .setScheduleToCloseTimeout(Duration.ofMinutes(30))
              .setRetryOptions(
                  RetryOptions.newBuilder()
                      .setInitialInterval(Duration.ofSeconds(5))
                      .setMaximumInterval(Duration.ofMinutes(1))
                      .build())
              .build());

  private final Set<String> waiting = new LinkedHashSet<>();

  @Override
  public WiringOutcome wire(AdapterWiringRequest request) {
    String cause = request.cause();
    WiringOutcome outcome = null;
    Duration retry = FIRST_RETRY;
    for (int round = 0; round < MAX_ROUNDS; round++) {
      outcome = activities.wireCluster(request.orgId(), request.clusterId(), cause);
      if (outcome.failed() > 0 && waiting.isEmpty()) {
        // Wait for a change, or retry what failed after the backoff.
        boolean changed = Workflow.await(retry, () -> !waiting.isEmpty());
        if (!changed) {
          cause = "retrying " + outcome.failed() + " binding(s) that failed";
          retry =
              retry.multipliedBy(2).compareTo(MAX_RETRY) > 0 ? MAX_RETRY : retry.multipliedBy(2);
          continue;
        }
      }
      if (waiting.isEmpty()) {
        return outcome;
      }
      cause = String.join("; ", waiting);
      waiting.clear();
      retry = FIRST_RETRY;
    }
    // Keep the history short: what is still to do goes on in a new run.
    Workflow.continueAsNew(new AdapterWiringRequest(request.orgId(), request.clusterId(), cause));
    return outcome;
  }

  @Override
  public void again(String cause) {
    waiting.add(cause);
  }
}
