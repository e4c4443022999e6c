package dev.gitopshq.workflows.release;

import dev.gitopshq.workflows.StoreActivities;
import dev.gitopshq.workflows.approval.ApprovalRequest;
import dev.gitopshq.workflows.approval.ApprovalResult;
import dev.gitopshq.workflows.approval.Approvals;
import dev.gitopshq.workflows.governance.Decision;
import dev.gitopshq.workflows.governance.Gate;
import dev.gitopshq.workflows.governance.Notification;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The steps every deployment takes, for {@link ReleaseWorkflowImpl} and {@link
 * RollbackWorkflowImpl}: source, freeze, decision, approval or break-glass, the commits, then the
 * clusters: direct-mode agents apply the commit, and Flux or Argo CD clusters are watched until
 * they run it (otherwise the deployment ends {@code degraded}). Every state change goes through
 * {@link #move}, which numbers the timeline events so a retried activity never writes one twice.
 */
abstract class GovernedDeployment {
  static final Duration POLICY_ATTEMPT = Duration.ofSeconds(15);
  static final Duration POLICY_MAX_BACKOFF = Duration.ofSeconds(30);

  /** How long a release may wait for its revision's generation to finish. */
  static final Duration SOURCE_WAIT = Duration.ofMinutes(30);

  /** How long a break-glass review stays in the inbox at least. */
  static final Duration REVIEW_TIMEOUT = Duration.ofDays(7);

  private final ReleaseActivities store =
      Workflow.newActivityStub(ReleaseActivities.class, StoreActivities.options());

  private final ReleaseActivities writer =
      Workflow.newActivityStub(
          ReleaseActivities.class,
          ActivityOptions.newBuilder(StoreActivities.options())
              .setStartToCloseTimeout(Duration.ofMinutes(5))
              .build());

  /** The workflow change that added direct deploy (histories before it replay without it). */
  static final String DIRECT_DEPLOY_CHANGE = "direct-deploy";

  /**
   * How long one attempt of a direct apply may take: the agent has {@code
   * GITOPSHQ_DIRECT_DISPATCH_TIMEOUT} to take it and the health timeout to report; a retry parks
   * the same apply id again.
   */
  static final Duration DIRECT_ATTEMPT = Duration.ofMinutes(30);

  private final DirectApplyActivities directStore =
      Workflow.newActivityStub(DirectApplyActivities.class, StoreActivities.options());

  private final DirectApplyActivities directAgent =
      Workflow.newActivityStub(
          DirectApplyActivities.class,
          ActivityOptions.newBuilder()
              .setStartToCloseTimeout(DIRECT_ATTEMPT)
              .setRetryOptions(
                  RetryOptions.newBuilder()
                      .setInitialInterval(Duration.ofSeconds(5))
                      .setMaximumAttempts(2)
                      .setDoNotRetry(DirectApplyActivities.UNAVAILABLE)
                      .build())
              .build());

  /** The workflow change that waits for the clusters to run a deployment (issue 24). */
  static final String RUNTIME_VERIFY_CHANGE = "runtime-verify";

  /** How often a runtime watch must show it is alive; a silent one is retried elsewhere. */
  static final Duration RUNTIME_HEARTBEAT = Duration.ofSeconds(30);

  /** What a runtime watch may run past its environment's timeout (its last read, its record). */
  static final Duration RUNTIME_MARGIN = Duration.ofMinutes(1);

  private final RuntimeActivities runtimeStore =
      Workflow.newActivityStub(RuntimeActivities.class, StoreActivities.options());

  private final ReleaseActivities notifier =
      Workflow.newActivityStub(ReleaseActivities.class, StoreActivities.notifyOptions());

  private DeploymentStatus status = DeploymentStatus.pending;
  private String cancelledBy;
  private int seq;
  private final List<Promise<Void>> deliveries = new ArrayList<>();

  DeploymentResult execute(DeploymentRequest r) {
    move(r, DeploymentStatus.pending, r.requester().name(), "requested: " + r.summary());

    if (!DeploymentRequest.ROLLBACK.equals(r.action())) {
      try {
        sourceStub().resolveSource(r.orgId(), r.releaseId());
      } catch (ActivityFailure e) {
        return finish(
            r,
            DeploymentStatus.failed,
            "system",
            "the release has no delivery to deploy: " + StoreActivities.reason(e),
            Map.of());
      }
    }
    if (cancelledBy != null) {
      return finish(
          r, DeploymentStatus.cancelled, cancelledBy, "cancelled before the decision", Map.of());
    }

    FreezeCheck freeze;
    try {
      freeze = policyStub(r).checkFreeze(r);
    } catch (ActivityFailure e) {
      return finish(
          r,
          DeploymentStatus.failed,
          "policy",
          "no freeze decision within " + r.approvalSeconds() + " s; nothing was deployed",
          Map.of());
    }
    if (freeze.blocked()) {
      return finish(
          r,
          DeploymentStatus.frozen,
          "policy " + freeze.policy() + " v" + freeze.policyVersion(),
          String.join("; ", freeze.reasons()),
          Map.of());
    }
    if (freeze.frozen()) {
      move(
          r,
          status,
          "policy " + freeze.policy() + " v" + freeze.policyVersion(),
          "frozen, passing under break-glass: " + String.join("; ", freeze.reasons()));
    }

    Gate.Result gate = Gate.pass(subject(r), () -> cancelledBy);
    if (!gate.proceeds()) {
      return finish(r, statusFor(gate.stop()), gate.actor(), gate.detail(), Map.of());
    }

    if (cancelledBy != null) {
      return finish(
          r, DeploymentStatus.cancelled, cancelledBy, "cancelled before deploying", Map.of());
    }
    List<DirectTarget> direct = List.of();
    if (Workflow.getVersion(DIRECT_DEPLOY_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1) {
      try {
        direct = directStore.targets(r.orgId(), r.deploymentId());
      } catch (ActivityFailure e) {
        notifyAsync(r, "deployment.failed", r.summary() + " failed: " + StoreActivities.reason(e));
        return finish(r, DeploymentStatus.failed, "system", StoreActivities.reason(e), Map.of());
      }
    }
    move(r, DeploymentStatus.deploying, "system", "writing " + String.join(", ", r.environments()));
    Map<String, String> commits;
    try {
      commits = writer.apply(r.orgId(), r.deploymentId());
    } catch (ActivityFailure e) {
      notifyAsync(r, "deployment.failed", r.summary() + " failed: " + StoreActivities.reason(e));
      return finish(r, DeploymentStatus.failed, "system", StoreActivities.reason(e), Map.of());
    }
    String directProblem = direct.isEmpty() ? null : applyDirectly(r, direct, commits);
    if (directProblem != null) {
      notifyAsync(r, "deployment.failed", r.summary() + " failed: " + directProblem);
      return finish(r, DeploymentStatus.failed, "system", directProblem, commits);
    }
    if (Workflow.getVersion(RUNTIME_VERIFY_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1) {
      String unverified = verifyRuntime(r, commits);
      if (unverified != null) {
        notifyAsync(r, "deployment.degraded", r.summary() + " is degraded: " + unverified);
        return finish(r, DeploymentStatus.degraded, "system", unverified, commits);
      }
    }
    StringBuilder detail = new StringBuilder("deployed");
    new TreeMap<>(commits)
        .forEach(
            (env, c) ->
                detail.append(' ').append(env).append('@').append(c, 0, Math.min(12, c.length())));
    return finish(r, DeploymentStatus.deployed, "system", detail.toString(), commits);
  }

  /**
   * Makes the agent of every direct-mode cluster apply its environment's new deploy commit, all
   * clusters at once, then appends each cluster's per-object results to the timeline.
   *
   * @return null when every apply succeeded, otherwise why not
   */
  private String applyDirectly(
      DeploymentRequest r, List<DirectTarget> targets, Map<String, String> commits) {
    List<String> names = new ArrayList<>();
    targets.forEach(t -> names.add(t.cluster() + " (" + t.environment() + ")"));
    move(
        r,
        DeploymentStatus.deploying,
        "system",
        "applying directly on " + String.join(", ", names));
    List<Promise<DirectOutcome>> running = new ArrayList<>();
    for (DirectTarget t : targets) {
      String commit = commits.get(t.environment());
      running.add(
          Async.function(
              directAgent::apply,
              r.orgId(),
              r.deploymentId(),
              t.applyId(r.deploymentId()),
              t,
              commit));
    }
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      DirectTarget t = targets.get(i);
      DirectOutcome o;
      try {
        o = running.get(i).get();
      } catch (ActivityFailure e) {
        o = new DirectOutcome(false, StoreActivities.reason(e), 0);
      }
      seq += directStore.record(r.orgId(), r.deploymentId(), t.applyId(r.deploymentId()), seq + 1);
      if (!o.success()) {
        problems.add("direct apply on " + t.cluster() + " (" + t.environment() + "): " + o.error());
      }
    }
    return problems.isEmpty() ? null : String.join("; ", problems);
  }

  /**
   * Waits until every cluster that delivers the deployment's environments through Flux or Argo CD
   * runs the environment's new commit and is healthy, all clusters at once, each for its
   * environment's timeout, and appends each cluster's outcome to the timeline.
   *
   * @return null when every cluster runs it, otherwise which did not and why
   */
  private String verifyRuntime(DeploymentRequest r, Map<String, String> commits) {
    List<RuntimeTarget> targets = new ArrayList<>();
    for (RuntimeTarget t : runtimeStore.runtimeTargets(r.orgId(), r.deploymentId())) {
      if (commits.containsKey(t.environment())) {
        targets.add(t);
      }
    }
    if (targets.isEmpty()) {
      return null;
    }
    List<String> names = new ArrayList<>();
    targets.forEach(t -> names.add(t.cluster() + " (" + t.environment() + ", " + t.mode() + ")"));
    move(
        r,
        DeploymentStatus.deploying,
        "system",
        "waiting for " + String.join(", ", names) + " to run the deployment");
    long start = Workflow.currentTimeMillis();
    List<Promise<RuntimeObservation>> running = new ArrayList<>();
    for (RuntimeTarget t : targets) {
      RuntimeActivities watcher =
          Workflow.newActivityStub(
              RuntimeActivities.class,
              ActivityOptions.newBuilder()
                  .setStartToCloseTimeout(
                      Duration.ofSeconds(t.timeoutSeconds()).plus(RUNTIME_MARGIN))
                  .setHeartbeatTimeout(RUNTIME_HEARTBEAT)
                  .setRetryOptions(
                      RetryOptions.newBuilder()
                          .setInitialInterval(Duration.ofSeconds(2))
                          .setMaximumAttempts(5)
                          .build())
                  .build());
      running.add(
          Async.function(
              watcher::verify,
              r.orgId(),
              r.deploymentId(),
              t,
              commits.get(t.environment()),
              start + t.timeoutSeconds() * 1000));
    }
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      RuntimeTarget t = targets.get(i);
      RuntimeObservation o;
      try {
        o = running.get(i).get();
      } catch (ActivityFailure e) {
        o =
            new RuntimeObservation(
                false, "", "", "", StoreActivities.reason(e), Workflow.currentTimeMillis());
      }
      String commit = commits.get(t.environment());
      String where = t.cluster() + " (" + t.environment() + ")";
      if (o.verified()) {
        move(
            r,
            DeploymentStatus.deploying,
            "cluster " + t.cluster(),
            where
                + " runs "
                + commit.substring(0, Math.min(12, commit.length()))
                + " through "
                + o.deliverer()
                + ": "
                + o.health());
      } else {
        move(r, DeploymentStatus.deploying, "cluster " + t.cluster(), where + ": " + o.reason());
        problems.add(where + ": " + o.reason());
      }
    }
    return problems.isEmpty() ? null : String.join("; ", problems);
  }

  /** The deployment as the governance gate sees it. */
  private Gate.Subject subject(DeploymentRequest r) {
    return new Gate.Subject() {
      @Override
      public Decision decide() {
        return policyStub(r).decide(r);
      }

      @Override
      public void record(String actor, String detail) {
        move(r, status, actor, detail);
      }

      @Override
      public void awaitingApproval(String detail) {
        move(r, DeploymentStatus.pending_approval, "policy", detail);
      }

      @Override
      public void notifyAsync(String event, String summary) {
        GovernedDeployment.this.notifyAsync(r, event, summary);
      }

      @Override
      public void startReview(Decision decision) {
        GovernedDeployment.this.startReview(r, decision);
      }

      @Override
      public ApprovalResult awaitApproval(Decision decision) {
        return GovernedDeployment.this.awaitApproval(r, decision);
      }

      @Override
      public String requesterName() {
        return r.requester().name();
      }

      @Override
      public String summary() {
        return r.summary();
      }

      @Override
      public String breakGlassJustification() {
        return r.breakGlassJustification();
      }

      @Override
      public long approvalSeconds() {
        return r.approvalSeconds();
      }

      @Override
      public String verb() {
        return "deployed";
      }
    };
  }

  static DeploymentStatus statusFor(Gate.Stop stop) {
    return switch (stop) {
      case NO_DECISION -> DeploymentStatus.failed;
      case DENIED, REJECTED, UNKNOWN_OUTCOME -> DeploymentStatus.rejected;
      case CANCELLED -> DeploymentStatus.cancelled;
      case EXPIRED -> DeploymentStatus.expired;
    };
  }

  private ReleaseActivities sourceStub() {
    return Workflow.newActivityStub(
        ReleaseActivities.class,
        ActivityOptions.newBuilder()
            .setStartToCloseTimeout(Duration.ofSeconds(30))
            .setScheduleToCloseTimeout(SOURCE_WAIT)
            .setRetryOptions(
                RetryOptions.newBuilder()
                    .setInitialInterval(Duration.ofSeconds(1))
                    .setBackoffCoefficient(1.5)
                    .setMaximumInterval(Duration.ofSeconds(10))
                    .setDoNotRetry(ReleaseFailures.NO_DELIVERY)
                    .build())
            .build());
  }

  private ReleaseActivities policyStub(DeploymentRequest r) {
    return Workflow.newActivityStub(
        ReleaseActivities.class,
        ActivityOptions.newBuilder()
            .setStartToCloseTimeout(POLICY_ATTEMPT)
            .setScheduleToCloseTimeout(Duration.ofSeconds(Math.max(60, r.approvalSeconds())))
            .setRetryOptions(
                RetryOptions.newBuilder()
                    .setInitialInterval(Duration.ofSeconds(1))
                    .setBackoffCoefficient(2.0)
                    .setMaximumInterval(POLICY_MAX_BACKOFF)
                    .build())
            .build());
  }

  private ApprovalResult awaitApproval(DeploymentRequest r, Decision d) {
    return Approvals.await(
        new ApprovalRequest(
            r.orgId(),
            r.deploymentId(),
            r.approvalKind(),
            r.deploymentId(),
            null,
            r.requester().id(),
            r.requester().behind(),
            d.requiredApprovers(),
            d.approverRoles(),
            d.approverTeams(),
            r.approvalSeconds(),
            r.summary()),
        () -> cancelledBy);
  }

  /** Break-glass deploys at once; an eligible reviewer acknowledges it afterwards. */
  private void startReview(DeploymentRequest r, Decision d) {
    Approvals.startReview(
        new ApprovalRequest(
            r.orgId(),
            r.deploymentId() + "-review",
            "break_glass_review",
            r.deploymentId(),
            null,
            r.requester().id(),
            r.requester().behind(),
            1,
            d.approverRoles(),
            d.approverTeams(),
            Math.max(r.approvalSeconds(), REVIEW_TIMEOUT.toSeconds()),
            "break-glass review: " + r.summary() + " — " + r.breakGlassJustification()));
  }

  private void notifyAsync(DeploymentRequest r, String event, String summary) {
    Notification n =
        new Notification(
            r.orgId(), r.deploymentId() + ":" + event, event, r.deploymentId(), null, summary);
    deliveries.add(Async.procedure(notifier::notify, n));
  }

  private void move(DeploymentRequest r, DeploymentStatus next, String actor, String detail) {
    status = next;
    store.transition(
        r.orgId(), r.deploymentId(), ++seq, next, actor == null ? "system" : actor, detail);
  }

  private DeploymentResult finish(
      DeploymentRequest r,
      DeploymentStatus end,
      String actor,
      String detail,
      Map<String, String> commits) {
    move(r, end, actor, detail);
    for (Promise<Void> p : deliveries) {
      try {
        p.get();
      } catch (ActivityFailure e) {
        // A webhook that stayed down for an hour is logged by the activity; the outcome stands.
      }
    }
    return new DeploymentResult(end, detail, commits);
  }

  public void cancel(String by) {
    if (cancelledBy == null
        && (status == DeploymentStatus.pending || status == DeploymentStatus.pending_approval)) {
      cancelledBy = by;
    }
  }

  public DeploymentStatus status() {
    return status;
  }
}
