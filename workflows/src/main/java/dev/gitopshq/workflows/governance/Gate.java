package dev.gitopshq.workflows.governance;

import dev.gitopshq.workflows.approval.ApprovalResult;
import io.temporal.failure.ActivityFailure;
import java.util.function.Supplier;

/**
 * The governance gate every governed action passes before it acts: the policy decision, then
 * approvers or break-glass. Commands and deployments (and whatever is governed next) go through
 * this one piece; each says, as a {@link Subject}, how it records a step, how it asks for approval
 * and what it is called in a notification.
 *
 * <pre>
 *   decide ──────────── none in time ──► stop NO_DECISION
 *     │ (recorded in the subject's timeline with the policy and its version)
 *     ├─ deny ───────────────────────► stop DENIED
 *     ├─ break_glass ─ notify break_glass.used, open a review ─► proceed
 *     ├─ auto_approve ───────────────► proceed
 *     ├─ require_approval ─ awaiting approval, notify approval.requested, approval child
 *     │     ├─ approved ─────────────► proceed
 *     │     ├─ rejected ─────────────► stop REJECTED (the last vote's name and comment)
 *     │     ├─ cancelled ────────────► stop CANCELLED
 *     │     └─ expired ──────────────► stop EXPIRED
 *     └─ anything else ──────────────► stop UNKNOWN_OUTCOME
 * </pre>
 *
 * <p>It runs inside a workflow: every effect is the subject's (activities, a child workflow), in
 * the same order as before the gate existed, so recorded histories replay.
 */
public final class Gate {
  private Gate() {}

  /** What a governed action lets the gate do. */
  public interface Subject {
    /**
     * Asks the policy for a decision.
     *
     * @throws ActivityFailure when no decision comes in time
     */
    Decision decide();

    /** Adds a step to the timeline, keeping the current status. */
    void record(String actor, String detail);

    /** Moves to waiting for approval, with this detail in the timeline. */
    void awaitingApproval(String detail);

    /** Sends a notification without waiting for it. */
    void notifyAsync(String event, String summary);

    /** Opens the break-glass review an eligible reviewer must acknowledge. */
    void startReview(Decision decision);

    /** Runs the approval and returns its outcome. */
    ApprovalResult awaitApproval(Decision decision);

    /** Who asked, as notifications name them. */
    String requesterName();

    /** The action in one line, for notifications. */
    String summary();

    /** The justification given with break-glass, if any. */
    String breakGlassJustification();

    /** How long the decision and the approvers may take, in seconds. */
    long approvalSeconds();

    /** What did not happen when there is no decision: "executed", "deployed". */
    String verb();
  }

  /** Why the gate stops an action. */
  public enum Stop {
    NO_DECISION,
    DENIED,
    REJECTED,
    CANCELLED,
    EXPIRED,
    UNKNOWN_OUTCOME
  }

  /**
   * What the gate decided.
   *
   * @param decision the policy's decision; null when there was none
   * @param approval the approvers' outcome when the decision asked for them, else null
   * @param stop why the action stops, or null when it may go ahead
   * @param actor who stopped it (the policy, the rejecting approver, the canceller, the system)
   * @param detail the reason, for the timeline
   */
  public record Result(
      Decision decision, ApprovalResult approval, Stop stop, String actor, String detail) {
    public boolean proceeds() {
      return stop == null;
    }
  }

  /**
   * Runs the gate for one action.
   *
   * @param cancelledBy who cancelled the action while it waited, read after the approval
   */
  public static Result pass(Subject s, Supplier<String> cancelledBy) {
    Decision decision;
    try {
      decision = s.decide();
    } catch (ActivityFailure e) {
      return new Result(
          null,
          null,
          Stop.NO_DECISION,
          "policy",
          "no policy decision within " + s.approvalSeconds() + " s; nothing was " + s.verb());
    }
    s.record(
        "policy " + decision.policy() + " v" + decision.policyVersion(),
        "decision " + decision.outcome() + ": " + String.join("; ", decision.reasons()));

    switch (decision.outcome()) {
      case Decision.DENY -> {
        return new Result(
            decision, null, Stop.DENIED, "policy", String.join("; ", decision.reasons()));
      }
      case Decision.BREAK_GLASS -> {
        s.notifyAsync(
            "break_glass.used",
            s.requesterName()
                + " used break-glass for "
                + s.summary()
                + ": "
                + s.breakGlassJustification());
        s.startReview(decision);
        return new Result(decision, null, null, null, null);
      }
      case Decision.AUTO_APPROVE -> {
        return new Result(decision, null, null, null, null);
      }
      case Decision.REQUIRE_APPROVAL -> {
        s.awaitingApproval("waiting for " + decision.requiredApprovers() + " approval(s)");
        s.notifyAsync(
            "approval.requested",
            s.summary() + " needs " + decision.requiredApprovers() + " approval(s)");
        ApprovalResult approval = s.awaitApproval(decision);
        return switch (approval.outcome()) {
          case ApprovalResult.APPROVED -> new Result(decision, approval, null, null, null);
          case ApprovalResult.REJECTED -> {
            var last = approval.votes().getLast().vote();
            yield new Result(
                decision,
                approval,
                Stop.REJECTED,
                last.name(),
                "rejected"
                    + (last.comment() == null || last.comment().isBlank()
                        ? ""
                        : ": " + last.comment()));
          }
          case ApprovalResult.CANCELLED ->
              new Result(
                  decision,
                  approval,
                  Stop.CANCELLED,
                  cancelledBy.get(),
                  "cancelled while waiting for approval");
          default ->
              new Result(
                  decision,
                  approval,
                  Stop.EXPIRED,
                  "system",
                  "no decision by approvers within " + s.approvalSeconds() + " s");
        };
      }
      default -> {
        return new Result(
            decision,
            null,
            Stop.UNKNOWN_OUTCOME,
            "policy",
            "the policy returned an unknown outcome '" + decision.outcome() + "'");
      }
    }
  }
}
