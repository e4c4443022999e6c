package dev.gitopshq.workflows.release;

import dev.gitopshq.workflows.StoreActivities;
import dev.gitopshq.workflows.governance.FreezeCheck;
import dev.gitopshq.workflows.governance.Gate;
import dev.gitopshq.workflows.governance.GovernedRun;
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
 * they run it (otherwise the deployment ends {@code degraded}). Its {@link GovernedRun} numbers the
 * timeline (a retried activity never writes an event twice), holds the status, sends the
 * notifications and runs the governance gate.
 */
abstract class GovernedDeployment {
  static final Duration POLICY_ATTEMPT = Duration.ofSeconds(15);
  static final Duration POLICY_MAX_BACKOFF = Duration.ofSeconds(30);

  /** How long a release may wait for its revision's generation to finish. */
  static final Duration SOURCE_WAIT = Duration.ofMinutes(30);

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

  private final GovernedRun<DeploymentStatus> run =
      new GovernedRun<>(
          GovernedRun.Statuses.named(DeploymentStatus.class),
          store::transition,
          n -> Async.procedure(notifier::notify, n),
          end -> {});

  DeploymentResult execute(DeploymentRequest r) {
    run.begin(subject(r), "requested: " + r.summary());

    if (!DeploymentRequest.ROLLBACK.equals(r.action())) {
      try {
        sourceStub().resolveSource(r.orgId(), r.releaseId());
      } catch (ActivityFailure e) {
        return finish(
            DeploymentStatus.failed,
            "system",
            "the release has no delivery to deploy: " + StoreActivities.reason(e),
            Map.of());
      }
    }
    if (run.cancelledBy() != null) {
      return finish(
          DeploymentStatus.cancelled, run.cancelledBy(), "cancelled before the decision", Map.of());
    }

    FreezeCheck freeze;
    try {
      freeze = policyStub(r).checkFreeze(r);
    } catch (ActivityFailure e) {
      return finish(
          DeploymentStatus.failed,
          "policy",
          "no freeze decision within " + r.approvalSeconds() + " s; nothing was deployed",
          Map.of());
    }
    if (freeze.blocked()) {
      return finish(
          DeploymentStatus.frozen,
          "policy " + freeze.policy() + " v" + freeze.policyVersion(),
          String.join("; ", freeze.reasons()),
          Map.of());
    }
    if (freeze.frozen()) {
      run.record(
          "policy " + freeze.policy() + " v" + freeze.policyVersion(),
          "frozen, passing under break-glass: " + String.join("; ", freeze.reasons()));
    }

    Gate.Result gate = run.gate(() -> policyStub(r).decide(r));
    if (!gate.proceeds()) {
      return finish(run.statusFor(gate.stop()), gate.actor(), gate.detail(), Map.of());
    }

    if (run.cancelledBy() != null) {
      return finish(
          DeploymentStatus.cancelled, run.cancelledBy(), "cancelled before deploying", Map.of());
    }
    List<DirectTarget> direct = List.of();
    if (Workflow.getVersion(DIRECT_DEPLOY_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1) {
      try {
        direct = directStore.targets(r.orgId(), r.deploymentId());
      } catch (ActivityFailure e) {
        run.notifyAsync("deployment.failed", r.summary() + " failed: " + StoreActivities.reason(e));
        return finish(DeploymentStatus.failed, "system", StoreActivities.reason(e), Map.of());
      }
    }
    run.move(
        DeploymentStatus.deploying, "system", "writing " + String.join(", ", r.environments()));
    Map<String, String> commits;
    try {
      commits = writer.apply(r.orgId(), r.deploymentId());
    } catch (ActivityFailure e) {
      run.notifyAsync("deployment.failed", r.summary() + " failed: " + StoreActivities.reason(e));
      return finish(DeploymentStatus.failed, "system", StoreActivities.reason(e), Map.of());
    }
    String directProblem = direct.isEmpty() ? null : applyDirectly(r, direct, commits);
    if (directProblem != null) {
      run.notifyAsync("deployment.failed", r.summary() + " failed: " + directProblem);
      return finish(DeploymentStatus.failed, "system", directProblem, commits);
    }
    if (Workflow.getVersion(RUNTIME_VERIFY_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1) {
      String unverified = verifyRuntime(r, commits);
      if (unverified != null) {
        run.notifyAsync("deployment.degraded", r.summary() + " is degraded: " + unverified);
        return finish(DeploymentStatus.degraded, "system", unverified, commits);
      }
    }
    StringBuilder detail = new StringBuilder("deployed");
    new TreeMap<>(commits)
        .forEach(
            (env, c) ->
                detail.append(' ').append(env).append('@').append(c, 0, Math.min(12, c.length())));
    return finish(DeploymentStatus.deployed, "system", detail.toString(), commits);
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
    run.move(
        DeploymentStatus.deploying, "system", "applying directly on " + String.join(", ", names));
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
      run.append(
          next ->
              directStore.record(r.orgId(), r.deploymentId(), t.applyId(r.deploymentId()), next));
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
    run.move(
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
        run.move(
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
        run.move(DeploymentStatus.deploying, "cluster " + t.cluster(), where + ": " + o.reason());
        problems.add(where + ": " + o.reason());
      }
    }
    return problems.isEmpty() ? null : String.join("; ", problems);
  }

  /** The deployment as the governance harness sees it. */
  private static GovernedRun.Subject subject(DeploymentRequest r) {
    return new GovernedRun.Subject(
        r.orgId(),
        r.deploymentId(),
        null,
        r.requester(),
        r.summary(),
        r.breakGlassJustification(),
        r.approvalSeconds(),
        "deployed",
        r.deploymentId(),
        r.approvalKind(),
        r.deploymentId() + "-review");
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

  private DeploymentResult finish(
      DeploymentStatus end, String actor, String detail, Map<String, String> commits) {
    run.finish(end, actor, detail);
    return new DeploymentResult(end, detail, commits);
  }

  public void cancel(String by) {
    run.cancel(by);
  }

  public DeploymentStatus status() {
    return run.status();
  }
}
