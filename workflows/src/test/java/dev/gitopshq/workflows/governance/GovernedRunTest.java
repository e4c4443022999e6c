package dev.gitopshq.workflows.governance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.workflows.approval.ApprovalRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The harness around the gate, outside Temporal: its numbered timeline, its cancellation window,
 * its notifications and the approval and review it asks for. (The workflows' own tests and the
 * recorded histories run it inside Temporal.)
 */
class GovernedRunTest {
  enum Status {
    pending,
    pending_approval,
    working,
    failed,
    rejected,
    cancelled,
    expired
  }

  static final GovernedRun.Statuses<Status> STATUSES = GovernedRun.Statuses.named(Status.class);

  static final Requester SA =
      new Requester("sa-1", "service_account", "ci", "", List.of(), List.of("alice", "bob"));

  static final GovernedRun.Subject SUBJECT =
      new GovernedRun.Subject(
          "org-1",
          "cmd-1",
          "cluster-1",
          SA,
          "restart Deployment shop/web on prod",
          "checkout is down",
          600,
          "executed",
          "cmd-1",
          "command",
          "cmd-1-review");

  final List<String> timeline = new ArrayList<>();
  final List<Notification> sent = new ArrayList<>();
  final GovernedRun<Status> run =
      new GovernedRun<>(
          STATUSES,
          (org, id, seq, status, actor, detail) ->
              timeline.add(
                  org + "/" + id + " #" + seq + " " + status + " " + actor + ": " + detail),
          n -> {
            sent.add(n);
            return null;
          },
          end -> {});

  @Test
  void theTimelineIsNumberedAcrossStepsAndEventsActivitiesAppend() {
    run.begin(SUBJECT, "requested restart");
    run.record("policy commands v3", "decision auto_approve");
    run.move(Status.working, null, "sent");
    run.append(next -> 2); // an activity wrote events #4 and #5
    run.record("agent", "done");

    assertThat(timeline)
        .containsExactly(
            "org-1/cmd-1 #1 pending ci: requested restart",
            "org-1/cmd-1 #2 pending policy commands v3: decision auto_approve",
            "org-1/cmd-1 #3 working system: sent",
            "org-1/cmd-1 #6 working agent: done");
    assertThat(run.status()).isEqualTo(Status.working);
  }

  @Test
  void aRunCanBeCancelledOnlyWhileItWaitsAndOnlyOnce() {
    run.cancel("dave");
    run.cancel("erin");
    assertThat(run.cancelledBy()).isEqualTo("dave");

    GovernedRun<Status> waiting =
        new GovernedRun<>(STATUSES, (o, i, q, s, a, d) -> {}, n -> null, e -> {});
    waiting.begin(SUBJECT, "requested");
    waiting.move(Status.pending_approval, "policy", "waiting for 1 approval(s)");
    waiting.cancel("dave");
    assertThat(waiting.cancelledBy()).isEqualTo("dave");

    GovernedRun<Status> working =
        new GovernedRun<>(STATUSES, (o, i, q, s, a, d) -> {}, n -> null, e -> {});
    working.begin(SUBJECT, "requested");
    working.move(Status.working, "system", "sent");
    working.cancel("dave");
    assertThat(working.cancelledBy()).isNull();
  }

  @Test
  void notificationsNameTheSubjectAndAreKeyedByItsEvent() {
    run.begin(SUBJECT, "requested");
    run.notifyAsync("command.failed", "restart failed");

    assertThat(sent)
        .containsExactly(
            new Notification(
                "org-1",
                "cmd-1:command.failed",
                "command.failed",
                "cmd-1",
                "cluster-1",
                "restart failed"));
  }

  @Test
  void theStatusesAreFoundByTheirNames() {
    assertThat(STATUSES)
        .isEqualTo(
            new GovernedRun.Statuses<>(
                Status.pending,
                Status.pending_approval,
                Status.failed,
                Status.rejected,
                Status.cancelled,
                Status.expired));
  }

  @Test
  void everyStopOfTheGateEndsInItsStatus() {
    assertThat(STATUSES.of(Gate.Stop.NO_DECISION)).isEqualTo(Status.failed);
    assertThat(STATUSES.of(Gate.Stop.DENIED)).isEqualTo(Status.rejected);
    assertThat(STATUSES.of(Gate.Stop.REJECTED)).isEqualTo(Status.rejected);
    assertThat(STATUSES.of(Gate.Stop.UNKNOWN_OUTCOME)).isEqualTo(Status.rejected);
    assertThat(STATUSES.of(Gate.Stop.CANCELLED)).isEqualTo(Status.cancelled);
    assertThat(STATUSES.of(Gate.Stop.EXPIRED)).isEqualTo(Status.expired);
  }

  @Test
  void theApprovalAsksForThePolicysApproversAndExcludesTheRequesterAndWhoStandsBehindThem() {
    Decision d =
        new Decision(
            "commands", 3, Decision.REQUIRE_APPROVAL, 2, List.of("admin"), List.of("sre"), null);

    assertThat(GovernedRun.approval(SUBJECT, d))
        .isEqualTo(
            new ApprovalRequest(
                "org-1",
                "cmd-1",
                "command",
                "cmd-1",
                "cluster-1",
                "sa-1",
                List.of("alice", "bob"),
                2,
                List.of("admin"),
                List.of("sre"),
                600,
                "restart Deployment shop/web on prod"));
  }

  @Test
  void aBreakGlassReviewNeedsOneReviewerAndStaysAWeekAtLeast() {
    Decision d =
        new Decision("commands", 3, Decision.BREAK_GLASS, 0, List.of("admin"), List.of(), null);

    assertThat(GovernedRun.review(SUBJECT, d))
        .isEqualTo(
            new ApprovalRequest(
                "org-1",
                "cmd-1-review",
                "break_glass_review",
                "cmd-1",
                "cluster-1",
                "sa-1",
                List.of("alice", "bob"),
                1,
                List.of("admin"),
                List.of(),
                7 * 24 * 3600,
                "break-glass review: restart Deployment shop/web on prod — checkout is down"));
  }
}
