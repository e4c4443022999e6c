package dev.gitopshq.workflows.credential;

import dev.gitopshq.workflows.StoreActivities;
import dev.gitopshq.workflows.TaskQueues;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
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
 *
 * <p>Since version 1 ({@link #JOBS_CHANGE}) a round sends the prune list from the holding replica,
 * then each allowed credential as its own {@code credential_sync} job of the agent-job outbox and
 * waits for the agent's answer to each; a credential whose job the agent did not answer fails the
 * round. Version 0 (one send activity on the holding replica) still replays.
 */
public class CredentialSyncWorkflowImpl implements CredentialSyncWorkflow {
  /** How many rounds one run does before it goes on in a new run (a short history). */
  static final int MAX_ROUNDS = 20;

  /** How many failed sends in a row one sync retries before it gives up (the sweep restarts it). */
  static final int MAX_SEND_FAILURES = 8;

  /** The change that sends each credential as a job of the agent-job outbox. */
  static final String JOBS_CHANGE = "credential-sync-jobs";

  /**
   * One credential's job: parked at once, answered when the agent wrote it (its lane runs one
   * credential at a time). The hub answers a job no stream took within two minutes; a retry takes
   * over the same job, so a job sent but unanswered (the agent restarted mid-write) goes again.
   */
  static final ActivityOptions JOB =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofMinutes(5))
          .setRetryOptions(
              RetryOptions.newBuilder()
                  .setInitialInterval(Duration.ofSeconds(5))
                  .setMaximumAttempts(2)
                  .build())
          .build();

  static final Duration FIRST_RETRY = Duration.ofSeconds(30);
  static final Duration MAX_RETRY = Duration.ofMinutes(10);

  private final CredentialSyncActivities store =
      Workflow.newActivityStub(CredentialSyncActivities.class, StoreActivities.options());

  private final CredentialJobActivities jobs =
      Workflow.newActivityStub(CredentialJobActivities.class, JOB);

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
    CredentialSendActivities sender = sender(holder);
    if (Workflow.getVersion(JOBS_CHANGE, Workflow.DEFAULT_VERSION, 1) != Workflow.DEFAULT_VERSION) {
      return sendJobs(request, syncId, decision, sender);
    }
    try {
      SyncSent sent = sender.sync(request.orgId(), request.clusterId(), syncId);
      return new SyncOutcome(
          decision.allowed(), decision.denied(), sent.credentials(), SyncOutcome.SENT);
    } catch (ActivityFailure e) {
      return new SyncOutcome(decision.allowed(), decision.denied(), 0, SyncOutcome.SEND_FAILED);
    }
  }

  /** Version 1: the prune list from the holding replica, then one job per allowed credential. */
  private SyncOutcome sendJobs(
      CredentialSyncRequest request,
      String syncId,
      SyncDecision decision,
      CredentialSendActivities sender) {
    SyncOutcome failed =
        new SyncOutcome(decision.allowed(), decision.denied(), 0, SyncOutcome.SEND_FAILED);
    try {
      SyncSent pruned = sender.prune(request.orgId(), request.clusterId(), syncId);
      if (!pruned.skipped().isEmpty()) {
        // The agent lacks credential.sync: its targets are failed with why; nothing to send.
        return new SyncOutcome(decision.allowed(), decision.denied(), 0, SyncOutcome.SENT);
      }
    } catch (ActivityFailure e) {
      return failed;
    }
    List<Promise<CredentialSynced>> sends = new ArrayList<>();
    for (String credentialId : decision.credentials()) {
      sends.add(
          Async.function(jobs::send, request.orgId(), request.clusterId(), syncId, credentialId));
    }
    int sent = 0;
    boolean unanswered = false;
    for (Promise<CredentialSynced> p : sends) {
      try {
        if (p.get().answered()) {
          sent++;
        } else {
          unanswered = true;
        }
      } catch (ActivityFailure e) {
        unanswered = true;
      }
    }
    return new SyncOutcome(
        decision.allowed(),
        decision.denied(),
        sent,
        unanswered ? SyncOutcome.SEND_FAILED : SyncOutcome.SENT);
  }

  private static CredentialSendActivities sender(String holder) {
    return Workflow.newActivityStub(
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
  }

  @Override
  public void again(SyncCause cause) {
    waiting.add(cause);
  }
}
