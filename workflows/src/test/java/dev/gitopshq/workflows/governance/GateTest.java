package dev.gitopshq.workflows.governance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gitopshq.workflows.approval.ApprovalResult;
import dev.gitopshq.workflows.approval.ApprovalVote;
import dev.gitopshq.workflows.approval.RecordedVote;
import io.temporal.api.enums.v1.RetryState;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.TimeoutFailure;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every branch of the governance gate, with a fake subject that records what the gate made it do:
 * the timeline steps, the notifications, the review and the approval, in order.
 */
class GateTest {
  /** A governed action that writes down every effect the gate asks of it. */
  static final class FakeSubject implements Gate.Subject {
    final List<String> effects = new ArrayList<>();
    Decision decision;
    ApprovalResult approval;
    boolean policyDown;
    Runnable whileApproversAreAwaited = () -> {};

    FakeSubject(Decision decision) {
      this.decision = decision;
    }

    @Override
    public Decision decide() {
      effects.add("decide");
      if (policyDown) {
        throw new ActivityFailure(
            "activity timed out",
            5,
            6,
            "Decide",
            "1",
            RetryState.RETRY_STATE_TIMEOUT,
            "worker",
            new TimeoutFailure("schedule to close", null, null));
      }
      return decision;
    }

    @Override
    public void record(String actor, String detail) {
      effects.add("record " + actor + " | " + detail);
    }

    @Override
    public void awaitingApproval(String detail) {
      effects.add("awaiting approval | " + detail);
    }

    @Override
    public void notifyAsync(String event, String summary) {
      effects.add("notify " + event + " | " + summary);
    }

    @Override
    public void startReview(Decision d) {
      effects.add("review for " + d.outcome());
    }

    @Override
    public ApprovalResult awaitApproval(Decision d) {
      effects.add("approval of " + d.requiredApprovers());
      whileApproversAreAwaited.run();
      return approval;
    }

    @Override
    public String requesterName() {
      return "Alice";
    }

    @Override
    public String summary() {
      return "restart Deployment shop/web on prod";
    }

    @Override
    public String breakGlassJustification() {
      return "checkout is down";
    }

    @Override
    public long approvalSeconds() {
      return 600;
    }

    @Override
    public String verb() {
      return "executed";
    }
  }

  static Decision decision(String outcome, int approvers, String... reasons) {
    return new Decision(
        "commands", 3, outcome, approvers, List.of("admin"), List.of("sre"), List.of(reasons));
  }

  static ApprovalResult approvals(String outcome, ApprovalVote... votes) {
    List<RecordedVote> recorded = new ArrayList<>();
    for (ApprovalVote v : votes) {
      recorded.add(new RecordedVote(v, true, null, 1_000));
    }
    return new ApprovalResult(outcome, recorded);
  }

  static ApprovalVote vote(String name, boolean approve, String comment) {
    return new ApprovalVote(name.toLowerCase(), name, "admin", List.of(), approve, comment);
  }

  static final String DECIDED = "record policy commands v3 | decision ";

  @Test
  void withoutADecisionInTimeNothingHappensAndTheTimelineSaysWhy() {
    FakeSubject s = new FakeSubject(null);
    s.policyDown = true;

    Gate.Result r = Gate.pass(s, () -> null);

    assertThat(r.proceeds()).isFalse();
    assertThat(r.stop()).isEqualTo(Gate.Stop.NO_DECISION);
    assertThat(r.decision()).isNull();
    assertThat(r.actor()).isEqualTo("policy");
    assertThat(r.detail()).isEqualTo("no policy decision within 600 s; nothing was executed");
    assertThat(s.effects).containsExactly("decide");
  }

  @Test
  void aDenialStopsTheActionWithThePolicysReasons() {
    FakeSubject s = new FakeSubject(decision(Decision.DENY, 0, "prod is frozen", "no restarts"));

    Gate.Result r = Gate.pass(s, () -> null);

    assertThat(r.stop()).isEqualTo(Gate.Stop.DENIED);
    assertThat(r.actor()).isEqualTo("policy");
    assertThat(r.detail()).isEqualTo("prod is frozen; no restarts");
    assertThat(r.decision()).isSameAs(s.decision);
    assertThat(s.effects).containsExactly("decide", DECIDED + "deny: prod is frozen; no restarts");
  }

  @Test
  void autoApprovalLetsTheActionGoAheadWithOnlyTheDecisionRecorded() {
    FakeSubject s = new FakeSubject(decision(Decision.AUTO_APPROVE, 0, "staging"));

    Gate.Result r = Gate.pass(s, () -> null);

    assertThat(r.proceeds()).isTrue();
    assertThat(r.decision()).isSameAs(s.decision);
    assertThat(r.approval()).isNull();
    assertThat(s.effects).containsExactly("decide", DECIDED + "auto_approve: staging");
  }

  @Test
  void breakGlassGoesAheadAtOnceAnnouncesItselfAndLeavesAReview() {
    FakeSubject s = new FakeSubject(decision(Decision.BREAK_GLASS, 0, "break-glass invoked"));

    Gate.Result r = Gate.pass(s, () -> null);

    assertThat(r.proceeds()).isTrue();
    assertThat(r.approval()).isNull();
    assertThat(s.effects)
        .containsExactly(
            "decide",
            DECIDED + "break_glass: break-glass invoked",
            "notify break_glass.used | Alice used break-glass for restart Deployment shop/web on"
                + " prod: checkout is down",
            "review for break_glass");
  }

  @Test
  void anApprovedRequestGoesAheadAfterWaitingAndAnnouncingTheRequest() {
    FakeSubject s = new FakeSubject(decision(Decision.REQUIRE_APPROVAL, 2, "prod"));
    s.approval =
        approvals(ApprovalResult.APPROVED, vote("Bob", true, null), vote("Carol", true, "ok"));

    Gate.Result r = Gate.pass(s, () -> null);

    assertThat(r.proceeds()).isTrue();
    assertThat(r.approval()).isSameAs(s.approval);
    assertThat(s.effects)
        .containsExactly(
            "decide",
            DECIDED + "require_approval: prod",
            "awaiting approval | waiting for 2 approval(s)",
            "notify approval.requested | restart Deployment shop/web on prod needs 2 approval(s)",
            "approval of 2");
  }

  @Test
  void aRejectionStopsTheActionInTheNameOfTheLastVoterWithTheirComment() {
    FakeSubject s = new FakeSubject(decision(Decision.REQUIRE_APPROVAL, 1, "prod"));
    s.approval =
        approvals(
            ApprovalResult.REJECTED, vote("Bob", true, null), vote("Carol", false, "not today"));

    Gate.Result r = Gate.pass(s, () -> null);

    assertThat(r.stop()).isEqualTo(Gate.Stop.REJECTED);
    assertThat(r.actor()).isEqualTo("Carol");
    assertThat(r.detail()).isEqualTo("rejected: not today");
    assertThat(r.approval()).isSameAs(s.approval);
  }

  @Test
  void aRejectionWithoutACommentSaysOnlyRejected() {
    for (String comment : new String[] {null, "  "}) {
      FakeSubject s = new FakeSubject(decision(Decision.REQUIRE_APPROVAL, 1, "prod"));
      s.approval = approvals(ApprovalResult.REJECTED, vote("Carol", false, comment));

      Gate.Result r = Gate.pass(s, () -> null);

      assertThat(r.stop()).isEqualTo(Gate.Stop.REJECTED);
      assertThat(r.actor()).isEqualTo("Carol");
      assertThat(r.detail()).isEqualTo("rejected");
    }
  }

  @Test
  void aCancellationWhileWaitingStopsTheActionInTheNameOfWhoCancelled() {
    FakeSubject s = new FakeSubject(decision(Decision.REQUIRE_APPROVAL, 1, "prod"));
    s.approval = approvals(ApprovalResult.CANCELLED);
    String[] cancelledBy = {null};
    s.whileApproversAreAwaited = () -> cancelledBy[0] = "Dave"; // the cancel signal arrives

    Gate.Result r = Gate.pass(s, () -> cancelledBy[0]);

    assertThat(r.stop()).isEqualTo(Gate.Stop.CANCELLED);
    assertThat(r.actor()).isEqualTo("Dave");
    assertThat(r.detail()).isEqualTo("cancelled while waiting for approval");
  }

  @Test
  void anExpiredRequestStopsTheActionInTheSystemsName() {
    FakeSubject s = new FakeSubject(decision(Decision.REQUIRE_APPROVAL, 1, "prod"));
    s.approval = approvals(ApprovalResult.EXPIRED, vote("Bob", true, null));

    Gate.Result r = Gate.pass(s, () -> null);

    assertThat(r.stop()).isEqualTo(Gate.Stop.EXPIRED);
    assertThat(r.actor()).isEqualTo("system");
    assertThat(r.detail()).isEqualTo("no decision by approvers within 600 s");
  }

  @Test
  void anOutcomeThePolicyShouldNotReturnStopsTheAction() {
    FakeSubject s = new FakeSubject(decision("maybe", 0, "?"));

    Gate.Result r = Gate.pass(s, () -> null);

    assertThat(r.stop()).isEqualTo(Gate.Stop.UNKNOWN_OUTCOME);
    assertThat(r.actor()).isEqualTo("policy");
    assertThat(r.detail()).isEqualTo("the policy returned an unknown outcome 'maybe'");
    assertThat(s.effects).containsExactly("decide", DECIDED + "maybe: ?");
  }
}
