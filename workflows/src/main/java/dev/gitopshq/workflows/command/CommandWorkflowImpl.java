package dev.gitopshq.workflows.command;

import dev.gitopshq.workflows.StoreActivities;
import dev.gitopshq.workflows.WorkflowMetrics;
import dev.gitopshq.workflows.approval.ApprovalResult;
import dev.gitopshq.workflows.governance.Decision;
import dev.gitopshq.workflows.governance.FreezeCheck;
import dev.gitopshq.workflows.governance.Gate;
import dev.gitopshq.workflows.governance.GovernedRun;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.TreeMap;

/**
 * See {@link CommandWorkflow}. Its {@link GovernedRun} numbers the timeline (a retried activity
 * never writes an event twice), holds the status, sends the notifications and runs the governance
 * gate; the workflow supplies the command's decision and then hands the command to the agent.
 */
public class CommandWorkflowImpl implements CommandWorkflow {
  static final Duration DECISION_ATTEMPT_TIMEOUT = Duration.ofSeconds(15);
  static final Duration DECISION_MAX_BACKOFF = Duration.ofSeconds(30);

  /**
   * Version 1 runs the store steps (timeline transitions, the capability check) and the policy
   * decision as local activities: in the worker that holds the workflow task, without a round trip
   * through Temporal's task queues per step. Histories recorded before it replay with activities.
   *
   * <p>Version 2 also parks the command for the agent with a local activity, and takes the agent's
   * report as a signal: no dispatch activity to schedule, start and complete, and the command
   * leaves for the agent while the workflow task that decided it is still being recorded.
   */
  static final String LOCAL_STEPS = "command-local-steps";

  /**
   * Version 1 asks the freeze policy before the approval decision: a command a freeze window holds
   * ends {@code frozen} unless it is break-glass, as a deployment does. Histories recorded before
   * it replay without the question.
   */
  static final String FREEZE_CHANGE = "command-freeze";

  /** How long after the command's own deadline the workflow still waits for the agent's report. */
  static final Duration REPORT_MARGIN = Duration.ofSeconds(30);

  private CommandActivities store;

  private final CommandActivities notifier =
      Workflow.newActivityStub(CommandActivities.class, StoreActivities.notifyOptions());

  private CommandSpec spec;
  private final GovernedRun<CommandStatus> run =
      new GovernedRun<>(
          GovernedRun.Statuses.named(CommandStatus.class),
          (orgId, id, seq, next, actor, detail) ->
              store.transition(orgId, id, seq, next, actor, detail),
          n -> Async.procedure(notifier::notify, n),
          end -> WorkflowMetrics.commandFinished(spec.type(), end.name()));

  private boolean local;
  private ExecutionResult report;

  @Override
  public CommandResult run(CommandRequest request) {
    spec = request.spec();
    CommandTimeouts t = request.timeouts();
    int version = Workflow.getVersion(LOCAL_STEPS, Workflow.DEFAULT_VERSION, 2);
    local = version >= 1;
    store =
        local
            ? Workflow.newLocalActivityStub(CommandActivities.class, StoreActivities.localOptions())
            : Workflow.newActivityStub(CommandActivities.class, StoreActivities.options());
    run.begin(subject(spec, t), "requested " + describe(spec));

    String missing = store.missingCapability(spec.orgId(), spec.clusterId(), spec.type());
    if (missing != null) {
      return finish(
          CommandStatus.rejected,
          "system",
          "the cluster's agent does not report the '" + missing + "' capability",
          null,
          null);
    }
    if (run.cancelledBy() != null) {
      return finish(
          CommandStatus.cancelled, run.cancelledBy(), "cancelled before the decision", null, null);
    }

    if (Workflow.getVersion(FREEZE_CHANGE, Workflow.DEFAULT_VERSION, 1) >= 1) {
      FreezeCheck freeze;
      try {
        freeze = policyStub(t).checkFreeze(spec);
      } catch (ActivityFailure e) {
        return finish(
            CommandStatus.failed,
            "policy",
            "no freeze decision within " + t.approvalSeconds() + " s; nothing was executed",
            null,
            null);
      }
      String by = "policy " + freeze.policy() + " v" + freeze.policyVersion();
      if (freeze.blocked()) {
        return finish(CommandStatus.frozen, by, String.join("; ", freeze.reasons()), null, null);
      }
      if (freeze.frozen()) {
        run.record(by, "frozen, passing under break-glass: " + String.join("; ", freeze.reasons()));
      }
    }

    Gate.Result gate = run.gate(() -> decide(spec, t));
    Decision decision = gate.decision();
    ApprovalResult approval = gate.approval();
    if (!gate.proceeds()) {
      return finish(run.statusFor(gate.stop()), gate.actor(), gate.detail(), decision, approval);
    }

    if (run.cancelledBy() != null) {
      return finish(
          CommandStatus.cancelled,
          run.cancelledBy(),
          "cancelled before execution",
          decision,
          approval);
    }
    run.move(CommandStatus.executing, "system", "sent to the agent");
    long deadline =
        Workflow.currentTimeMillis() + (t.agentWaitSeconds() + t.executionSeconds()) * 1000;
    ExecutionResult result =
        version >= 2 ? parkAndAwait(spec, t, deadline) : dispatch(spec, t, deadline);
    if (result.success()) {
      return finish(CommandStatus.completed, "agent", result.output(), decision, approval);
    }
    run.notifyAsync("command.failed", describe(spec) + " failed: " + result.error());
    return finish(CommandStatus.failed, "agent", result.error(), decision, approval);
  }

  /** Version 2: parks the command with a local activity and waits for the agent's report. */
  private ExecutionResult parkAndAwait(CommandSpec spec, CommandTimeouts t, long deadline) {
    Workflow.newLocalActivityStub(AgentDispatchActivities.class, StoreActivities.localOptions())
        .park(spec, deadline);
    Duration wait =
        Duration.ofSeconds(t.agentWaitSeconds() + t.executionSeconds()).plus(REPORT_MARGIN);
    if (Workflow.await(wait, () -> report != null)) {
      return report;
    }
    return notReported(t);
  }

  /** Versions 0 and 1: an activity parks the command and is completed with the agent's report. */
  private ExecutionResult dispatch(CommandSpec spec, CommandTimeouts t, long deadline) {
    AgentDispatchActivities agent =
        Workflow.newActivityStub(
            AgentDispatchActivities.class,
            ActivityOptions.newBuilder()
                .setStartToCloseTimeout(
                    Duration.ofSeconds(t.agentWaitSeconds() + t.executionSeconds())
                        .plus(REPORT_MARGIN))
                // One attempt: a command is never re-sent by Temporal; the agent's idempotency
                // covers the rest.
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                .build());
    try {
      return agent.execute(spec, deadline);
    } catch (ActivityFailure e) {
      return notReported(t);
    }
  }

  private static ExecutionResult notReported(CommandTimeouts t) {
    return new ExecutionResult(
        false,
        "",
        "the agent did not report within "
            + (t.agentWaitSeconds() + t.executionSeconds())
            + " s (disconnected, or the command is still running)");
  }

  /** The command as the governance harness sees it. */
  private static GovernedRun.Subject subject(CommandSpec spec, CommandTimeouts t) {
    return new GovernedRun.Subject(
        spec.orgId(),
        spec.commandId(),
        spec.clusterId(),
        spec.requester(),
        describe(spec),
        spec.breakGlassJustification(),
        t.approvalSeconds(),
        "executed",
        CommandWorkflow.approvalId(spec.commandId()),
        "command",
        CommandWorkflow.reviewId(spec.commandId()));
  }

  private Decision decide(CommandSpec spec, CommandTimeouts t) {
    return policyStub(t).decide(spec);
  }

  /**
   * The stub of the policy questions (freeze, decision): retried with backoff while OPA cannot
   * answer, for as long as the approval may take.
   */
  private CommandActivities policyStub(CommandTimeouts t) {
    RetryOptions retry =
        RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofSeconds(1))
            .setBackoffCoefficient(2.0)
            .setMaximumInterval(DECISION_MAX_BACKOFF)
            .build();
    Duration total = Duration.ofSeconds(t.approvalSeconds());
    return local
        ? Workflow.newLocalActivityStub(
            CommandActivities.class,
            LocalActivityOptions.newBuilder()
                .setStartToCloseTimeout(DECISION_ATTEMPT_TIMEOUT)
                .setScheduleToCloseTimeout(total)
                .setLocalRetryThreshold(Duration.ofSeconds(1))
                .setRetryOptions(retry)
                .build())
        : Workflow.newActivityStub(
            CommandActivities.class,
            ActivityOptions.newBuilder()
                .setStartToCloseTimeout(DECISION_ATTEMPT_TIMEOUT)
                .setScheduleToCloseTimeout(total)
                .setRetryOptions(retry)
                .build());
  }

  private CommandResult finish(
      CommandStatus end, String actor, String detail, Decision d, ApprovalResult a) {
    run.finish(end, actor, detail);
    return new CommandResult(end, detail, d, a);
  }

  static String describe(CommandSpec s) {
    StringBuilder b =
        new StringBuilder(s.type())
            .append(' ')
            .append(s.target().kind())
            .append(' ')
            .append(s.target().namespace())
            .append('/')
            .append(s.target().name())
            .append(" on ")
            .append(s.clusterName());
    if (!s.params().isEmpty()) {
      b.append(' ').append(new TreeMap<>(s.params()));
    }
    return b.toString();
  }

  @Override
  public void cancel(String by) {
    run.cancel(by);
  }

  @Override
  public void reported(ExecutionResult result) {
    if (report == null) {
      report = result;
    }
  }

  @Override
  public CommandStatus status() {
    return run.status();
  }
}
