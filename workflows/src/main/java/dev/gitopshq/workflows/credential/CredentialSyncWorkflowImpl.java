package dev.gitopshq.workflows.credential;

import dev.gitopshq.workflows.StoreActivities;
import dev.gitopshq.workflows.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Runs decide-then-send rounds until no change is left waiting. A round whose send failed (the
 * holding replica went away, the stream broke) is tried again, decision included, after a backoff
 * that doubles from 30 s to 10 min, or at once when a change arrives. A round with no replica
 * holding the stream ends the sync: the agent's next connection starts a new one.
 */
public class CredentialSyncWorkflowImpl implements CredentialSyncWorkflow {
  /** How many rounds one run does before it goes on in a new run (a short history). */
  static final int MAX_ROUNDS = 20;

  /** How many failed sends in a row one sync retries before it gives up (the sweep restarts it). */
  static final int MAX_SEND_FAILURES = 8;

  static final Duration FIRST_RETRY = Duration.ofSeconds(30);
  static final Duration MAX_RETRY = Duration.ofMinutes(10);

  private final CredentialSyncActivities store =
      Workflow.newActivityStub(CredentialSyncActivities.class, StoreActivities.options());

  private final Set<SyncCause> waiting = new LinkedHashSet<>();

  @Override
  public SyncOutcome sync(CredentialSyncRequest request) {
    String cause = request.cause();
    String actor = request.actor();
    SyncOutcome outcome = null;
    Duration retry = FIRST_RETRY;
    int failures = 0;
    for (int round = 0; round < MAX_ROUNDS; round++) {
      // The idempotency key of this round: born here, so a retried activity sees the same one.
      String syncId = Workflow.randomUUID().toString();
      SyncDecision decision =
          store.decide(request.orgId(), request.clusterId(), syncId, cause, actor);
      outcome = send(request, syncId, decision);
      if (outcome.state().equals(SyncOutcome.SEND_FAILED)
          && waiting.isEmpty()
          && ++failures < MAX_SEND_FAILURES) {
        boolean changed = Workflow.await(retry, () -> !waiting.isEmpty());
        if (!changed) {
          cause = "retrying a send that failed";
          actor = "system";
          retry =
              retry.multipliedBy(2).compareTo(MAX_RETRY) > 0 ? MAX_RETRY : retry.multipliedBy(2);
          continue;
        }
      }
      if (waiting.isEmpty()) {
        return outcome;
      }
      List<String> causes = new ArrayList<>();
      Set<String> actors = new LinkedHashSet<>();
      for (SyncCause c : waiting) {
        causes.add(c.cause());
        actors.add(c.actor());
      }
      cause = String.join("; ", causes);
      actor = actors.size() == 1 ? actors.iterator().next() : String.join(",", actors);
      waiting.clear();
      retry = FIRST_RETRY;
      failures = 0;
    }
    // Keep the history short: what is still to do goes on in a new run.
    Workflow.continueAsNew(
        new CredentialSyncRequest(request.orgId(), request.clusterId(), cause, actor));
    return outcome;
  }

  private SyncOutcome send(CredentialSyncRequest request, String syncId, SyncDecision decision) {
    String holder = store.streamHolder(request.orgId(), request.clusterId());
    if (holder == null) {
      return new SyncOutcome(decision.allowed(), decision.denied(), 0, SyncOutcome.NOT_CONNECTED);
    }
    CredentialSendActivities sender =
        Workflow.newActivityStub(
            CredentialSendActivities.class,
            ActivityOptions.newBuilder()
                .setTaskQueue(TaskQueues.replica(holder))
                // The holding replica takes it at once; if it died, the round is retried.
                .setScheduleToStartTimeout(Duration.ofSeconds(30))
                .setStartToCloseTimeout(Duration.ofSeconds(60))
                .setRetryOptions(
                    RetryOptions.newBuilder()
                        .setInitialInterval(Duration.ofSeconds(2))
                        .setMaximumAttempts(3)
                        .build())
                .build());
    try {
      SyncSent sent = sender.sync(request.orgId(), request.clusterId(), syncId);
      return new SyncOutcome(
          decision.allowed(), decision.denied(), sent.credentials(), SyncOutcome.SENT);
    } catch (ActivityFailure e) {
      return new SyncOutcome(decision.allowed(), decision.denied(), 0, SyncOutcome.SEND_FAILED);
    }
  }

  @Override
  public void again(SyncCause cause) {
    waiting.add(cause);
  }
}
