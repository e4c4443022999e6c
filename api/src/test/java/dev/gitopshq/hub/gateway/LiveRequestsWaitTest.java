package dev.gitopshq.hub.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.OpenLogStream;
import dev.gitopshq.agent.v1.ReadResource;
import dev.gitopshq.agent.v1.ResourceDetail;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The wait of a live request for an agent whose stream was lost a moment ago, on a clock that only
 * moves when the wait sleeps: the request is served once the agent is back, within the wait, and a
 * cluster gone for long (or the wait switched off) answers at once.
 */
class LiveRequestsWaitTest {
  static final UUID ORG = UUID.randomUUID();
  static final UUID CLUSTER = UUID.randomUUID();
  static final Instant T0 = Instant.parse("2026-11-28T05:00:00Z");
  static final ReadResource READ = ReadResource.newBuilder().setRequestId("r1").build();

  /** A clock moved by the sleeps of the wait. */
  static final class SleptClock extends Clock {
    volatile Instant now = T0;
    final AtomicInteger sleeps = new AtomicInteger();

    void sleep(long millis) {
      sleeps.incrementAndGet();
      now = now.plusMillis(millis);
    }

    long elapsedMillis() {
      return Duration.between(T0, now).toMillis();
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }

  /**
   * Another replica that holds the stream from {@code backAt} on; before, it holds nothing, or
   * (with {@code deadHolder}) the holder PostgreSQL names refuses every call as NotHeld.
   */
  static final class Holder implements StreamForwarder {
    final SleptClock clock;
    final Instant backAt;
    final boolean deadHolder;
    final AtomicInteger calls = new AtomicInteger();

    Holder(SleptClock clock, Duration back, boolean deadHolder) {
      this.clock = clock;
      this.backAt = back == null ? Instant.MAX : T0.plus(back);
      this.deadHolder = deadHolder;
    }

    boolean back() {
      return !clock.instant().isBefore(backAt);
    }

    @Override
    public Optional<CompletableFuture<ResourceDetail>> readResource(
        UUID orgId, UUID clusterId, ReadResource request, Duration timeout) {
      calls.incrementAndGet();
      if (back()) {
        return Optional.of(
            CompletableFuture.completedFuture(
                ResourceDetail.newBuilder()
                    .setRequestId(request.getRequestId())
                    .setOutcome(ResourceDetail.Outcome.FOUND)
                    .build()));
      }
      return deadHolder
          ? Optional.of(CompletableFuture.failedFuture(new NotHeld("connection refused")))
          : Optional.empty();
    }

    @Override
    public Optional<CompletableFuture<ArgoApplications>> listApplications(
        UUID orgId, UUID clusterId, Duration timeout) {
      calls.incrementAndGet();
      return back()
          ? Optional.of(CompletableFuture.completedFuture(ArgoApplications.getDefaultInstance()))
          : Optional.empty();
    }

    @Override
    public boolean requestInventory(UUID orgId, UUID clusterId, String requestId) {
      calls.incrementAndGet();
      return back();
    }

    @Override
    public Optional<AgentGateway.LogHandle> openLogStream(
        UUID orgId, UUID clusterId, OpenLogStream request, LogReceiver to) {
      calls.incrementAndGet();
      return back()
          ? Optional.of(
              new AgentGateway.LogHandle() {
                @Override
                public void grant(long bytes) {}

                @Override
                public void close(String reason) {}
              })
          : Optional.empty();
    }
  }

  final SleptClock clock = new SleptClock();
  final AtomicInteger lostAsked = new AtomicInteger();

  LiveRequests live(Duration wait, boolean lostLately, StreamForwarder holder) {
    LiveRequests live =
        new LiveRequests(
            new AgentConnections(null, null, "hub-self", clock, s -> {}),
            new StreamExchanges(),
            new ReconnectWait(wait, clock, clock::sleep),
            (orgId, clusterId, forwarding, within) -> {
              lostAsked.incrementAndGet();
              assertThat(forwarding).isTrue();
              assertThat(within).isEqualTo(wait);
              return lostLately;
            });
    live.forwardThrough(holder);
    return live;
  }

  @Test
  void aReadWaitsForTheAgentToComeBackAndIsServedThen() throws Exception {
    Holder holder = new Holder(clock, Duration.ofMillis(1_500), false);
    LiveRequests live = live(Duration.ofSeconds(10), true, holder);

    ResourceDetail answer =
        live.readResource(ORG, CLUSTER, READ, Duration.ofSeconds(10))
            .orElseThrow()
            .get(5, TimeUnit.SECONDS);

    assertThat(answer.getOutcome()).isEqualTo(ResourceDetail.Outcome.FOUND);
    // Served at the first look after 1.5 s, looking every 200 ms.
    assertThat(clock.elapsedMillis()).isBetween(1_500L, 1_700L);
    assertThat(clock.sleeps.get()).isEqualTo(8);
    assertThat(holder.calls.get()).isEqualTo(9);
  }

  @Test
  void aReadForwardedToADeadHolderIsTriedAgainUntilTheAgentIsBack() throws Exception {
    // PostgreSQL still names the killed replica: every forwarded call fails NotHeld until the
    // agent's stream reaches a survivor.
    Holder holder = new Holder(clock, Duration.ofMillis(2_000), true);
    LiveRequests live = live(Duration.ofSeconds(10), false, holder);

    ResourceDetail answer =
        live.readResource(ORG, CLUSTER, READ, Duration.ofSeconds(10))
            .orElseThrow()
            .get(5, TimeUnit.SECONDS);

    assertThat(answer.getOutcome()).isEqualTo(ResourceDetail.Outcome.FOUND);
    assertThat(clock.elapsedMillis()).isBetween(2_000L, 2_200L);
    // A NotHeld answer is itself the sign of a lost stream: no need to ask PostgreSQL.
    assertThat(lostAsked.get()).isZero();
  }

  @Test
  void aReadWhoseAgentDoesNotComeBackFailsNotHeldAtTheEndOfTheWait() {
    Holder holder = new Holder(clock, null, false);
    LiveRequests live = live(Duration.ofSeconds(10), true, holder);

    CompletableFuture<ResourceDetail> answer =
        live.readResource(ORG, CLUSTER, READ, Duration.ofSeconds(10)).orElseThrow();

    assertThatThrownBy(() -> answer.get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(StreamForwarder.NotHeld.class)
        .hasMessageContaining("did not come back within 10 s");
    assertThat(clock.elapsedMillis()).isEqualTo(10_000L);
  }

  @Test
  void aDeadHolderThatStaysDeadFailsWithItsOwnAnswerAtTheEndOfTheWait() {
    Holder holder = new Holder(clock, null, true);
    LiveRequests live = live(Duration.ofSeconds(3), false, holder);

    CompletableFuture<ResourceDetail> answer =
        live.readResource(ORG, CLUSTER, READ, Duration.ofSeconds(10)).orElseThrow();

    assertThatThrownBy(() -> answer.get(5, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(StreamForwarder.NotHeld.class)
        .hasMessage("connection refused");
    assertThat(clock.elapsedMillis()).isEqualTo(3_000L);
  }

  @Test
  void aClusterGoneForLongAnswersAtOnce() {
    Holder holder = new Holder(clock, Duration.ofMillis(500), false);
    LiveRequests live = live(Duration.ofSeconds(10), false, holder);

    assertThat(live.readResource(ORG, CLUSTER, READ, Duration.ofSeconds(10))).isEmpty();
    assertThat(live.listApplications(ORG, CLUSTER, Duration.ofSeconds(10))).isEmpty();
    assertThat(live.requestInventory(ORG, CLUSTER, "inv-1")).isFalse();
    assertThat(live.openLogStream(ORG, CLUSTER, OpenLogStream.getDefaultInstance(), null))
        .isEmpty();
    assertThat(clock.sleeps.get()).isZero();
    assertThat(holder.calls.get()).isEqualTo(4);
  }

  @Test
  void withTheWaitOffNothingWaitsNorAsksWhetherTheStreamWasLost() {
    Holder holder = new Holder(clock, Duration.ofMillis(500), true);
    LiveRequests live = live(Duration.ZERO, true, holder);

    assertThat(live.reconnecting(ORG, CLUSTER)).isFalse();
    assertThat(live.listApplications(ORG, CLUSTER, Duration.ofSeconds(10))).isEmpty();
    assertThatThrownBy(
            () ->
                live.readResource(ORG, CLUSTER, READ, Duration.ofSeconds(10))
                    .orElseThrow()
                    .get(5, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(StreamForwarder.NotHeld.class);
    assertThat(clock.sleeps.get()).isZero();
    assertThat(lostAsked.get()).isZero();
  }

  @Test
  void argoApplicationsALogSessionAndAnInventoryRefreshWaitToo() throws Exception {
    Holder holder = new Holder(clock, Duration.ofMillis(1_000), false);
    LiveRequests live = live(Duration.ofSeconds(10), true, holder);

    assertThat(
            live.listApplications(ORG, CLUSTER, Duration.ofSeconds(10))
                .orElseThrow()
                .get(5, TimeUnit.SECONDS))
        .isNotNull();
    assertThat(clock.elapsedMillis()).isBetween(1_000L, 1_200L);

    clock.now = T0;
    assertThat(live.openLogStream(ORG, CLUSTER, OpenLogStream.getDefaultInstance(), null))
        .isPresent();
    assertThat(clock.elapsedMillis()).isBetween(1_000L, 1_200L);

    clock.now = T0;
    assertThat(live.requestInventory(ORG, CLUSTER, "inv-1")).isTrue();
    assertThat(clock.elapsedMillis()).isBetween(1_000L, 1_200L);
  }
}
