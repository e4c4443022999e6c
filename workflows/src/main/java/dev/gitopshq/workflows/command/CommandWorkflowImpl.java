package dev.gitopshq.workflows.command;

import dev.gitopshq.workflows.StoreActivities;
import dev.gitopshq.workflows.WorkflowMetrics;
import dev.gitopshq.workflows.approval.ApprovalRequest;
import dev.gitopshq.workflows.approval.ApprovalResult;
import dev.gitopshq.workflows.approval.Approvals;
import dev.gitopshq.workflows.governance.Decision;
import dev.gitopshq.workflows.governance.Gate;
import dev.gitopshq.workflows.governance.Notification;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * See {@link CommandWorkflow}. Every state change goes through {@link #move}, which numbers the
 * timeline events so a retried activity never writes one twice.
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

  /** How long after the command's own deadline the workflow still waits for the agent's report. */
  static final Duration REPORT_MARGIN = Duration.ofSeconds(30);

  private CommandActivities store;

  private final CommandActivities notifier =
      Workflow.newActivityStub(CommandActivities.class, StoreActivities.notifyOptions());

  private boolean local;
  private ExecutionResult report;
  private CommandStatus status = CommandStatus.pending;
  private String cancelledBy;
  private int seq;
  private final List<Promise<Void>> deliveries = new ArrayList<>();

  @Override
  public CommandResult run(CommandRequest request) {
    CommandSpec spec = request.spec();
    CommandTimeouts t = request.timeouts();
    int version = Workflow.getVersion(LOCAL_STEPS, Workflow.DEFAULT_VERSION, 2);
    local = version >= 1;
    store =
        local
            ? Workflow.newLocalActivityStub(CommandActivities.class, StoreActivities.localOptions())
            : Workflow.newActivityStub(CommandActivities.class, StoreActivities.options());
    move(spec, CommandStatus.pending, spec.requester().name(), "requested " + describe(spec));

    String missing = store.missingCapability(spec.orgId(), spec.clusterId(), spec.type());
    if (missing != null) {
      return finish(
          spec,
          CommandStatus.rejected,
          "system",
          "the cluster's agent does not report the '" + missing + "' capability",
          null,
          null);
    }
    if (cancelledBy != null) {
      return finish(
          spec, CommandStatus.cancelled, cancelledBy, "cancelled before the decision", null, null);
    }

    Gate.Result gate = Gate.pass(subject(spec, t), () -> cancelledBy);
    Decision decision = gate.decision();
    ApprovalResult approval = gate.approval();
    if (!gate.proceeds()) {
      return finish(spec, statusFor(gate.stop()), gate.actor(), gate.detail(), decision, approval);
    }

    if (cancelledBy != null) {
      return finish(
          spec,
          CommandStatus.cancelled,
          cancelledBy,
          "cancelled before execution",
          decision,
          approval);
    }
    move(spec, CommandStatus.executing, "system", "sent to the agent");
    long deadline =
        Workflow.currentTimeMillis() + (t.agentWaitSeconds() + t.executionSeconds()) * 1000;
    ExecutionResult result =
        version >= 2 ? parkAndAwait(spec, t, deadline) : dispatch(spec, t, deadline);
    if (result.success()) {
      return finish(spec, CommandStatus.completed, "agent", result.output(), decision, approval);
    }
    notifyAsync(spec, "command.failed", describe(spec) + " failed: " + result.error());
    return finish(spec, CommandStatus.failed, "agent", result.error(), decision, approval);
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

  /** The command as the governance gate sees it. */
  private Gate.Subject subject(CommandSpec spec, CommandTimeouts t) {
    return new Gate.Subject() {
      @Override
      public Decision decide() {
        return CommandWorkflowImpl.this.decide(spec, t);
      }

      @Override
      public void record(String actor, String detail) {
        move(spec, status, actor, detail);
      }

      @Override
      public void awaitingApproval(String detail) {
        move(spec, CommandStatus.pending_approval, "policy", detail);
      }

      @Override
      public void notifyAsync(String event, String summary) {
        CommandWorkflowImpl.this.notifyAsync(spec, event, summary);
      }

      @Override
      public void startReview(Decision decision) {
        CommandWorkflowImpl.this.startReview(spec, decision, t);
      }

      @Override
      public ApprovalResult awaitApproval(Decision decision) {
        return CommandWorkflowImpl.this.awaitApproval(spec, decision, t);
      }

      @Override
      public String requesterName() {
        return spec.requester().name();
      }

      @Override
      public String summary() {
        return describe(spec);
      }

      @Override
      public String breakGlassJustification() {
        return spec.breakGlassJustification();
      }

      @Override
      public long approvalSeconds() {
        return t.approvalSeconds();
      }

      @Override
      public String verb() {
        return "executed";
      }
    };
  }

  static CommandStatus statusFor(Gate.Stop stop) {
    return switch (stop) {
      case NO_DECISION -> CommandStatus.failed;
      case DENIED, REJECTED, UNKNOWN_OUTCOME -> CommandStatus.rejected;
      case CANCELLED -> CommandStatus.cancelled;
      case EXPIRED -> CommandStatus.expired;
    };
  }

  private Decision decide(CommandSpec spec, CommandTimeouts t) {
    RetryOptions retry =
        RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofSeconds(1))
            .setBackoffCoefficient(2.0)
            .setMaximumInterval(DECISION_MAX_BACKOFF)
            .build();
    Duration total = Duration.ofSeconds(t.approvalSeconds());
    CommandActivities policy =
        local
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
    return policy.decide(spec);
  }

  private ApprovalResult awaitApproval(CommandSpec spec, Decision d, CommandTimeouts t) {
    return Approvals.await(
        new ApprovalRequest(
            spec.orgId(),
            CommandWorkflow.approvalId(spec.commandId()),
            "command",
            spec.commandId(),
            spec.clusterId(),
            spec.requester().id(),
            spec.requester().behind(),
            d.requiredApprovers(),
            d.approverRoles(),
            d.approverTeams(),
            t.approvalSeconds(),
            describe(spec)),
        () -> cancelledBy);
  }

  /** Break-glass runs at once; an eligible reviewer must acknowledge it afterwards. */
  private void startReview(CommandSpec spec, Decision d, CommandTimeouts t) {
    Approvals.startReview(
        new ApprovalRequest(
            spec.orgId(),
            CommandWorkflow.reviewId(spec.commandId()),
            "break_glass_review",
            spec.commandId(),
            spec.clusterId(),
            spec.requester().id(),
            spec.requester().behind(),
            1,
            d.approverRoles(),
            d.approverTeams(),
            Math.max(t.approvalSeconds(), Duration.ofDays(7).toSeconds()),
            "break-glass review: " + describe(spec) + " — " + spec.breakGlassJustification()));
  }

  private void notifyAsync(CommandSpec spec, String event, String summary) {
    Notification n =
        new Notification(
            spec.orgId(),
            spec.commandId() + ":" + event,
            event,
            spec.commandId(),
            spec.clusterId(),
            summary);
    deliveries.add(Async.procedure(notifier::notify, n));
  }

  private void move(CommandSpec spec, CommandStatus next, String actor, String detail) {
    status = next;
    store.transition(spec.orgId(), spec.commandId(), ++seq, next, actor, detail);
  }

  private CommandResult finish(
      CommandSpec spec,
      CommandStatus end,
      String actor,
      String detail,
      Decision d,
      ApprovalResult a) {
    move(spec, end, actor == null ? "system" : actor, detail);
    WorkflowMetrics.commandFinished(spec.type(), end.name());
    for (Promise<Void> p : deliveries) {
      try {
        p.get();
      } catch (ActivityFailure e) {
        // A webhook that stayed down for an hour is logged by the activity; the command's own
        // outcome stands.
      }
    }
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
    if (cancelledBy == null
        && (status == CommandStatus.pending || status == CommandStatus.pending_approval)) {
      cancelledBy = by;
    }
  }

  @Override
  public void reported(ExecutionResult result) {
    if (report == null) {
      report = result;
    }
  }

  @Override
  public CommandStatus status() {
    return status;
  }
}
