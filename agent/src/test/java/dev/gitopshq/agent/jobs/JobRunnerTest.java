package dev.gitopshq.agent.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Timestamp;
import dev.gitopshq.agent.config.Capability;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.CommandResult;
import dev.gitopshq.agent.v1.ExecuteCommand;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The runner's rules, with a handler that counts and can be held. */
class JobRunnerTest {
  static final Instant NOW = Instant.parse("2026-11-27T21:00:00Z");
  static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

  final BlockingQueue<AgentMessage> sent = new LinkedBlockingQueue<>();
  final AtomicInteger runs = new AtomicInteger();
  final AtomicInteger running = new AtomicInteger();
  final AtomicInteger mostAtOnce = new AtomicInteger();
  final List<String> order = Collections.synchronizedList(new ArrayList<>());
  final CountDownLatch release = new CountDownLatch(1);
  volatile boolean hold;
  JobRunner runner;

  @AfterEach
  void stop() {
    release.countDown();
    if (runner != null) {
      runner.close();
    }
  }

  static ExecuteCommand job(String id) {
    return ExecuteCommand.newBuilder().setCommandId(id).setType("scale").build();
  }

  static CommandResult answer(ExecuteCommand c, CommandResult.Outcome outcome, String error) {
    return CommandResult.newBuilder()
        .setCommandId(c.getCommandId())
        .setOutcome(outcome)
        .setError(error)
        .build();
  }

  /** The handler: counts, records the order, may wait for {@link #release}, answers SUCCEEDED. */
  CommandResult handle(ExecuteCommand c) {
    runs.incrementAndGet();
    mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
    order.add(c.getCommandId());
    try {
      if (hold) {
        release.await(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      running.decrementAndGet();
    }
    return CommandResult.newBuilder()
        .setCommandId(c.getCommandId())
        .setOutcome(CommandResult.Outcome.SUCCEEDED)
        .setOutput("run " + runs.get())
        .build();
  }

  JobKind.Builder<ExecuteCommand, CommandResult> kind(Lane lane) {
    return JobKind.builder(
            "test job",
            ExecuteCommand::getCommandId,
            this::handle,
            AgentMessage.Builder::setCommandResult)
        .lane(lane);
  }

  JobRunner runner(Set<Capability> capabilities, JobKind<?, ?>... kinds) {
    runner = new JobRunner(capabilities, CLOCK, sent::add, List.of(kinds));
    return runner;
  }

  AgentMessage next() throws InterruptedException {
    AgentMessage m = sent.poll(10, TimeUnit.SECONDS);
    assertThat(m).as("an answer").isNotNull();
    return m;
  }

  @Test
  void aJobIdRunsOnceAndARepeatIsAnsweredWithTheFirstOutcome() throws Exception {
    JobKind<ExecuteCommand, CommandResult> k =
        kind(Lane.serial("test-serial")).remembering(10).build();
    runner(Set.of(), k);

    runner.submit(k, job("c-1"));
    AgentMessage first = next();
    runner.submit(k, job("c-1"));
    AgentMessage again = next();

    assertThat(first.getCorrelationId()).isEqualTo("c-1");
    assertThat(first.getCommandResult().getOutput()).isEqualTo("run 1");
    assertThat(again).isEqualTo(first);
    assertThat(runs).hasValue(1);
    assertThat(runner.started(k)).isEqualTo(1);
  }

  @Test
  void aRepeatOfAJobStillRunningIsNotRunAgainAndTheFirstAnswers() throws Exception {
    JobKind<ExecuteCommand, CommandResult> k =
        kind(Lane.serial("test-serial")).remembering(10).build();
    runner(Set.of(), k);
    hold = true;

    runner.submit(k, job("c-1"));
    runner.submit(k, job("c-1"));
    release.countDown();

    assertThat(next().getCommandResult().getOutput()).isEqualTo("run 1");
    assertThat(sent.poll(300, TimeUnit.MILLISECONDS)).as("one answer").isNull();
    assertThat(runs).hasValue(1);
  }

  @Test
  void theMemoryIsBoundedAndForgetsTheOldestFirst() throws Exception {
    JobKind<ExecuteCommand, CommandResult> k =
        kind(Lane.serial("test-serial")).remembering(2).build();
    runner(Set.of(), k);
    for (String id : List.of("a", "b", "c")) {
      runner.submit(k, job(id));
      next();
    }

    runner.submit(k, job("c"));
    assertThat(next().getCommandResult().getOutput()).as("remembered").isEqualTo("run 3");
    runner.submit(k, job("a"));
    assertThat(next().getCommandResult().getOutput()).as("forgotten: run again").isEqualTo("run 4");
  }

  @Test
  void withoutMemoryOnlyAJobStillRunningIsNotRepeated() throws Exception {
    JobKind<ExecuteCommand, CommandResult> k = kind(Lane.serial("test-serial")).build();
    runner(Set.of(), k);
    runner.submit(k, job("r-1"));
    next();
    runner.submit(k, job("r-1"));
    assertThat(next().getCommandResult().getOutput()).isEqualTo("run 2");
  }

  @Test
  void aJobPastItsDeadlineIsNotStartedAndItsExpiryIsRemembered() throws Exception {
    JobKind<ExecuteCommand, CommandResult> k =
        kind(Lane.serial("test-serial"))
            .remembering(10)
            .deadline(
                c -> JobKind.deadline(c.hasDeadline(), c.getDeadline()),
                c -> answer(c, CommandResult.Outcome.EXPIRED, "too late"))
            .build();
    runner(Set.of(), k);
    ExecuteCommand late =
        job("late").toBuilder()
            .setDeadline(Timestamp.newBuilder().setSeconds(NOW.getEpochSecond() - 1))
            .build();
    ExecuteCommand inTime =
        job("in-time").toBuilder()
            .setDeadline(Timestamp.newBuilder().setSeconds(NOW.getEpochSecond() + 60))
            .build();

    runner.submit(k, late);
    AgentMessage expired = next();
    runner.submit(k, late);
    assertThat(next()).isEqualTo(expired);
    runner.submit(k, inTime);
    AgentMessage ran = next();

    assertThat(expired.getCommandResult().getOutcome()).isEqualTo(CommandResult.Outcome.EXPIRED);
    assertThat(ran.getCommandResult().getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
    assertThat(runs).hasValue(1);
    assertThat(runner.started(k)).isEqualTo(1);
  }

  @Test
  void aJobWithoutItsCapabilityIsRefusedAtOnceAndNeverRuns() throws Exception {
    Function<ExecuteCommand, Set<Capability>> needs =
        c ->
            c.getType().equals("scale")
                ? EnumSet.of(Capability.KUBERNETES_SCALE)
                : EnumSet.noneOf(Capability.class);
    JobKind<ExecuteCommand, CommandResult> k =
        kind(Lane.serial("test-serial"))
            .remembering(10)
            .requires(
                needs,
                (c, needed) ->
                    answer(
                        c,
                        CommandResult.Outcome.REFUSED,
                        needed.isEmpty() ? "unknown" : "needs " + needed.iterator().next()))
            .build();
    runner(EnumSet.of(Capability.OBSERVE), k);

    runner.submit(k, job("c-1"));
    AgentMessage refused = next();
    runner.submit(k, job("c-2").toBuilder().setType("explode").build());
    AgentMessage unknown = next();

    assertThat(refused.getCorrelationId()).isEqualTo("c-1");
    assertThat(refused.getCommandResult().getOutcome()).isEqualTo(CommandResult.Outcome.REFUSED);
    assertThat(refused.getCommandResult().getError()).isEqualTo("needs KUBERNETES_SCALE");
    assertThat(unknown.getCommandResult().getError()).isEqualTo("unknown");
    assertThat(runs).hasValue(0);
    assertThat(runner.started(k)).isZero();
  }

  @Test
  void anyOneOfTheNeededCapabilitiesLetsAJobRun() throws Exception {
    JobKind<ExecuteCommand, CommandResult> k =
        kind(Lane.serial("test-serial"))
            .requires(
                c -> EnumSet.of(Capability.ARGOCD_READ, Capability.OBSERVE),
                (c, needed) -> answer(c, CommandResult.Outcome.REFUSED, "off"))
            .build();
    runner(EnumSet.of(Capability.OBSERVE), k);
    runner.submit(k, job("l-1"));
    assertThat(next().getCommandResult().getOutcome()).isEqualTo(CommandResult.Outcome.SUCCEEDED);
  }

  @Test
  void aBoundedLaneRunsAtMostItsThreadsAtOnceAndAnswersBusyBeyondItsQueue() throws Exception {
    JobKind<ExecuteCommand, CommandResult> k =
        kind(Lane.bounded("test-bounded", 2, 1))
            .busy(c -> answer(c, CommandResult.Outcome.FAILED, "busy"))
            .build();
    runner(Set.of(), k);
    hold = true;

    for (int i = 1; i <= 4; i++) {
      runner.submit(k, job("j-" + i));
    }
    AgentMessage busy = next();
    assertThat(busy.getCorrelationId()).isEqualTo("j-4");
    assertThat(busy.getCommandResult().getError()).isEqualTo("busy");
    while (running.get() < 2) {
      Thread.sleep(10);
    }
    Thread.sleep(100);
    assertThat(running).as("the third waits").hasValue(2);
    release.countDown();
    List<String> answered = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      answered.add(next().getCorrelationId());
    }

    assertThat(answered).containsExactlyInAnyOrder("j-1", "j-2", "j-3");
    assertThat(mostAtOnce).hasValue(2);
    assertThat(runs).hasValue(3);
  }

  @Test
  void kindsOnOneSerialLaneRunOneAtATimeInArrivalOrder() throws Exception {
    Lane shared = Lane.serial("test-shared");
    JobKind<ExecuteCommand, CommandResult> first = kind(shared).build();
    JobKind<ExecuteCommand, CommandResult> second = kind(shared).build();
    runner(Set.of(), first, second);
    hold = true;

    runner.submit(first, job("1"));
    runner.submit(second, job("2"));
    runner.submit(first, job("3"));
    release.countDown();
    for (int i = 0; i < 3; i++) {
      next();
    }

    assertThat(order).containsExactly("1", "2", "3");
    assertThat(mostAtOnce).hasValue(1);
  }

  @Test
  void aHandlerThatThrowsIsAnsweredByTheKindsFailureAndNotRemembered() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    JobKind<ExecuteCommand, CommandResult> k =
        JobKind.<ExecuteCommand, CommandResult>builder(
                "failing job",
                ExecuteCommand::getCommandId,
                (ExecuteCommand c) -> {
                  calls.incrementAndGet();
                  throw new IllegalStateException("boom ghqa_" + "a".repeat(64));
                },
                AgentMessage.Builder::setCommandResult)
            .lane(Lane.serial("test-serial"))
            .remembering(10)
            .failed((c, e) -> answer(c, CommandResult.Outcome.FAILED, e.getMessage()))
            .build();
    runner(Set.of(), k);

    runner.submit(k, job("f-1"));
    assertThat(next().getCommandResult().getOutcome()).isEqualTo(CommandResult.Outcome.FAILED);
    runner.submit(k, job("f-1"));
    next();
    assertThat(calls).hasValue(2);
  }

  @Test
  void anAnswerThatCannotBeSentIsDroppedAndARepeatIsAnsweredFromMemory() throws Exception {
    JobKind<ExecuteCommand, CommandResult> k =
        kind(Lane.serial("test-serial")).remembering(10).build();
    AtomicInteger attempts = new AtomicInteger();
    runner =
        new JobRunner(
            Set.of(), CLOCK, m -> attempts.incrementAndGet() > 1 && sent.add(m), List.of(k));

    runner.submit(k, job("c-1"));
    while (attempts.get() == 0) {
      Thread.sleep(10);
    }
    runner.submit(k, job("c-1"));

    assertThat(next().getCommandResult().getOutput()).isEqualTo("run 1");
    assertThat(runs).hasValue(1);
  }

  @Test
  void closingDropsQueuedJobsInterruptsTheRunningOneAfterItsGraceAndRefusesNewOnes()
      throws Exception {
    JobKind<ExecuteCommand, CommandResult> k = kind(Lane.serial("test-serial")).build();
    runner(Set.of(), k);
    hold = true;
    runner.submit(k, job("running"));
    runner.submit(k, job("queued"));
    while (runs.get() == 0) {
      Thread.sleep(10);
    }
    runner.close();
    runner.submit(k, job("late"));

    assertThat(order).containsExactly("running");
  }

  @Test
  void aBoundedLaneWithoutABusyAnswerAndAnUnknownKindAreProgrammingErrors() {
    JobKind<ExecuteCommand, CommandResult> bounded = kind(Lane.bounded("test-b", 1, 1)).build();
    assertThatThrownBy(() -> new JobRunner(Set.of(), CLOCK, sent::add, List.of(bounded)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("busy");
    JobKind<ExecuteCommand, CommandResult> other = kind(Lane.serial("test-serial")).build();
    runner(Set.of(), kind(Lane.serial("test-serial")).build());
    assertThatThrownBy(() -> runner.submit(other, job("x")))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
