package dev.gitopshq.workflows.governance;

import dev.gitopshq.workflows.approval.ApprovalRequest;
import dev.gitopshq.workflows.approval.ApprovalResult;
import dev.gitopshq.workflows.approval.Approvals;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Promise;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;

/**
 * The harness of one governed run (a command, a deployment) around the {@link Gate}: its numbered
 * timeline and status, its notifications, its approval and break-glass review, its cancellation and
 * its end. Each workflow supplies a {@link Subject} and its policy decision; the workflow keeps
 * only what it does once the gate lets it through.
 *
 * <p>Workflow code: create it when the workflow object is created (a cancel signal may come before
 * the workflow method runs), and call it only from workflow threads. Every effect is one of the
 * workflow's own activities or an approval child, in the order the workflows made them before this
 * class existed, so recorded histories replay.
 *
 * @param <S> the workflow's status enum
 */
public final class GovernedRun<S extends Enum<S>> {
  /** How long a break-glass review stays in the inbox at least. */
  public static final Duration REVIEW_TIMEOUT = Duration.ofDays(7);

  /**
   * What is governed, as the gate, the timeline, notifications and the approvals inbox name it.
   *
   * @param id the command's or deployment's id: the timeline's and the notifications' subject
   * @param clusterId the cluster it acts on, when it is one cluster; else null
   * @param summary the action in one line
   * @param breakGlassJustification why the requester used break-glass, if they did
   * @param approvalSeconds how long the decision and the approvers may take
   * @param verb what did not happen when there is no decision: "executed", "deployed"
   * @param approvalId the id of its approval (and of the approval child's workflow)
   * @param approvalKind what the inbox calls the approval: command, release, promotion, rollback
   * @param reviewId the id of its break-glass review
   */
  public record Subject(
      String orgId,
      String id,
      String clusterId,
      Requester requester,
      String summary,
      String breakGlassJustification,
      long approvalSeconds,
      String verb,
      String approvalId,
      String approvalKind,
      String reviewId) {}

  /** The workflow's timeline activity: adds event {@code seq} and sets the status. */
  @FunctionalInterface
  public interface Store<S> {
    void transition(String orgId, String id, int seq, S status, String actor, String detail);
  }

  /**
   * The statuses the harness sets: where a run starts, where it waits for approvers, and where each
   * of the gate's stops ends it.
   */
  public record Statuses<S>(
      S pending, S pendingApproval, S failed, S rejected, S cancelled, S expired) {
    /**
     * The statuses of an enum that names them as commands and deployments do: pending,
     * pending_approval, failed, rejected, cancelled, expired.
     *
     * @throws IllegalArgumentException when the enum lacks one
     */
    public static <S extends Enum<S>> Statuses<S> named(Class<S> type) {
      return new Statuses<>(
          Enum.valueOf(type, "pending"),
          Enum.valueOf(type, "pending_approval"),
          Enum.valueOf(type, "failed"),
          Enum.valueOf(type, "rejected"),
          Enum.valueOf(type, "cancelled"),
          Enum.valueOf(type, "expired"));
    }

    /** The end of a run the gate stopped. */
    public S of(Gate.Stop stop) {
      return switch (stop) {
        case NO_DECISION -> failed;
        case DENIED, REJECTED, UNKNOWN_OUTCOME -> rejected;
        case CANCELLED -> cancelled;
        case EXPIRED -> expired;
      };
    }
  }

  private final Statuses<S> statuses;
  private final Store<S> store;
  private final Function<Notification, Promise<Void>> notifier;
  private final Consumer<S> ended;

  private Subject subject;
  private S status;
  private String cancelledBy;
  private int seq;
  private final List<Promise<Void>> deliveries = new ArrayList<>();

  /**
   * @param store the timeline activity, called when a step is recorded
   * @param notifier starts the notify activity and returns its promise; it must call {@code
   *     Async.procedure} with the activity stub's method itself, so the activity is scheduled in
   *     the calling workflow thread
   * @param ended told of the final status after it is recorded, before the notifications are
   *     awaited
   */
  public GovernedRun(
      Statuses<S> statuses,
      Store<S> store,
      Function<Notification, Promise<Void>> notifier,
      Consumer<S> ended) {
    this.statuses = statuses;
    this.store = store;
    this.notifier = notifier;
    this.ended = ended;
    this.status = statuses.pending();
  }

  /** Starts the timeline: the requester asked, with this detail. */
  public void begin(Subject s, String detail) {
    this.subject = s;
    move(statuses.pending(), s.requester().name(), detail);
  }

  /** Runs the gate with the workflow's policy decision. */
  public Gate.Result gate(Supplier<Decision> decide) {
    return Gate.pass(gateSubject(decide), () -> cancelledBy);
  }

  /** The end status for a stop of the gate. */
  public S statusFor(Gate.Stop stop) {
    return statuses.of(stop);
  }

  /** Adds a timeline step with this status; a null actor is the system. */
  public void move(S next, String actor, String detail) {
    status = next;
    store.transition(
        subject.orgId(), subject.id(), ++seq, next, actor == null ? "system" : actor, detail);
  }

  /** Adds a timeline step keeping the current status. */
  public void record(String actor, String detail) {
    move(status, actor, detail);
  }

  /**
   * Lets an activity append timeline events itself: {@code writer} gets the next sequence number
   * and returns how many events it added.
   */
  public void append(IntUnaryOperator writer) {
    seq += writer.applyAsInt(seq + 1);
  }

  /** Sends a notification without waiting for it; the end waits for all of them. */
  public void notifyAsync(String event, String summary) {
    deliveries.add(
        notifier.apply(
            new Notification(
                subject.orgId(),
                subject.id() + ":" + event,
                event,
                subject.id(),
                subject.clusterId(),
                summary)));
  }

  /**
   * Records the final status, then waits for the notifications sent so far (a webhook that stayed
   * down is logged by its activity; the run's outcome stands).
   */
  public void finish(S end, String actor, String detail) {
    move(end, actor, detail);
    ended.accept(end);
    for (Promise<Void> p : deliveries) {
      try {
        p.get();
      } catch (ActivityFailure e) {
        // Logged by the notify activity.
      }
    }
  }

  /** Who cancelled the run while it could still be cancelled, or null. */
  public String cancelledBy() {
    return cancelledBy;
  }

  /** Cancels the run if it has not been cancelled and still waits to begin or for approvers. */
  public void cancel(String by) {
    if (cancelledBy == null
        && (status == statuses.pending() || status == statuses.pendingApproval())) {
      cancelledBy = by;
    }
  }

  public S status() {
    return status;
  }

  /** The approval the gate waits for. */
  static ApprovalRequest approval(Subject s, Decision d) {
    return ApprovalRequest.builder()
        .orgId(s.orgId())
        .approvalId(s.approvalId())
        .kind(s.approvalKind())
        .subjectId(s.id())
        .clusterId(s.clusterId())
        .requester(s.requester())
        .approvers(d)
        .timeoutSeconds(s.approvalSeconds())
        .summary(s.summary())
        .build();
  }

  /** The review an eligible reviewer acknowledges after a break-glass run. */
  static ApprovalRequest review(Subject s, Decision d) {
    return ApprovalRequest.builder()
        .orgId(s.orgId())
        .approvalId(s.reviewId())
        .kind(ApprovalRequest.BREAK_GLASS_REVIEW)
        .subjectId(s.id())
        .clusterId(s.clusterId())
        .requester(s.requester())
        .approvers(1, d.approverRoles(), d.approverTeams())
        .timeoutSeconds(Math.max(s.approvalSeconds(), REVIEW_TIMEOUT.toSeconds()))
        .summary("break-glass review: " + s.summary() + " — " + s.breakGlassJustification())
        .build();
  }

  private Gate.Subject gateSubject(Supplier<Decision> decide) {
    Subject s = subject;
    return new Gate.Subject() {
      @Override
      public Decision decide() {
        return decide.get();
      }

      @Override
      public void record(String actor, String detail) {
        GovernedRun.this.record(actor, detail);
      }

      @Override
      public void awaitingApproval(String detail) {
        move(statuses.pendingApproval(), "policy", detail);
      }

      @Override
      public void notifyAsync(String event, String summary) {
        GovernedRun.this.notifyAsync(event, summary);
      }

      @Override
      public void startReview(Decision decision) {
        Approvals.startReview(review(s, decision));
      }

      @Override
      public ApprovalResult awaitApproval(Decision decision) {
        return Approvals.await(approval(s, decision), () -> cancelledBy);
      }

      @Override
      public String requesterName() {
        return s.requester().name();
      }

      @Override
      public String summary() {
        return s.summary();
      }

      @Override
      public String breakGlassJustification() {
        return s.breakGlassJustification();
      }

      @Override
      public long approvalSeconds() {
        return s.approvalSeconds();
      }

      @Override
      public String verb() {
        return s.verb();
      }
    };
  }
}
