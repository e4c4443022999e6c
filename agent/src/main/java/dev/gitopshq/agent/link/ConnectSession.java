package dev.gitopshq.agent.link;

import dev.gitopshq.agent.identity.AgentIdentity;
import dev.gitopshq.agent.metrics.AgentMetrics;
import dev.gitopshq.agent.v1.AgentHubGrpc;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.AgentStatus;
import dev.gitopshq.agent.v1.Heartbeat;
import dev.gitopshq.agent.v1.Hello;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.Welcome;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Connect stream: Hello, Welcome, heartbeats, until either side ends it. {@link HubLink} opens
 * one after another, and learns through {@link Link} what each one saw.
 */
final class ConnectSession implements ClientResponseObserver<AgentMessage, HubMessage> {

  /** What a stream needs from, and reports to, the link that opened it. */
  interface Link {
    /** Whether the link was closed. */
    boolean closed();

    /**
     * The hub answered Hello; adopts its settings and cluster id.
     *
     * @param used the identity this stream was opened with
     * @param first whether this is the stream's first Welcome
     * @return the heartbeat interval to use, in seconds
     */
    int welcomed(Welcome welcome, AgentIdentity used, boolean first);

    /** The stream is ready: messages can be sent. */
    void connected();

    /** A heartbeat went out. */
    void heartbeatSent();

    /** A hub message other than Welcome, e.g. ExecuteCommand. */
    void deliver(HubMessage message);

    /** The agent's status for the next heartbeat; the round trip is filled in here. */
    AgentStatus status();
  }

  /** How a stream ended, how long it was connected, and its last heartbeat interval. */
  record End(Status status, Duration connectedFor, int intervalSeconds) {}

  private static final Logger log = LoggerFactory.getLogger(ConnectSession.class);
  private static final Duration CLOSE_GRACE = Duration.ofSeconds(2);

  private final AgentIdentity identity;
  private final Hello hello;
  private final ScheduledExecutorService scheduler;
  private final Link link;
  private final CompletableFuture<Status> ended = new CompletableFuture<>();
  private final AtomicLong sequence = new AtomicLong();
  private final Object sendLock = new Object();
  private volatile ClientCallStreamObserver<AgentMessage> requests;
  private ScheduledFuture<?> heartbeats;
  private ScheduledFuture<?> welcomeTimeout;
  private volatile long welcomedAtNanos;
  // The last heartbeat sent and when, for the round trip its HeartbeatAck closes.
  private volatile long lastSequence;
  private volatile long lastSentNanos;
  private volatile long rttMillis;
  private volatile int intervalSeconds;

  /**
   * @param identity the identity whose token opens the stream
   * @param hello the first message; its heartbeat interval is used until Welcome
   * @param scheduler runs heartbeats and the Welcome timeout
   */
  ConnectSession(
      AgentIdentity identity, Hello hello, ScheduledExecutorService scheduler, Link link) {
    this.identity = identity;
    this.hello = hello;
    this.scheduler = scheduler;
    this.link = link;
    this.intervalSeconds = hello.getHeartbeatIntervalSeconds();
  }

  /** Opens the stream, sends Hello and waits until the stream ends. */
  End run(ManagedChannel channel) {
    try {
      if (link.closed()) {
        return new End(Status.CANCELLED, Duration.ZERO, intervalSeconds);
      }
      channel.resetConnectBackoff();
      AgentHubGrpc.newStub(channel)
          .withInterceptors(HubLink.bearer(identity.agentToken()))
          .connect(this);
      if (link.closed()) {
        // close() ran before this stream existed, so it could not end it; do that here.
        cancel("agent shutting down");
      }
      send(AgentMessage.newBuilder().setHello(hello).build());
      ScheduledFuture<?> timeout =
          schedule(
              () -> {
                if (welcomedAtNanos == 0) {
                  cancel(
                      "the hub did not answer Hello within "
                          + HubLink.WELCOME_TIMEOUT.toSeconds()
                          + " s");
                }
              },
              HubLink.WELCOME_TIMEOUT.toMillis());
      synchronized (sendLock) {
        welcomeTimeout = timeout;
      }
      Status status = awaitEnd();
      long welcomedAt = welcomedAtNanos;
      Duration connectedFor =
          welcomedAt == 0 ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - welcomedAt);
      return new End(status, connectedFor, intervalSeconds);
    } finally {
      stopTimers();
    }
  }

  /** Whether the hub has answered Hello on this stream. */
  boolean welcomed() {
    return welcomedAtNanos != 0;
  }

  private Status awaitEnd() {
    try {
      return ended.get();
    } catch (InterruptedException e) {
      // The agent's thread is only interrupted to stop it; the flag stays set for the loop.
      Thread.currentThread().interrupt();
      cancel("agent interrupted");
      return Status.CANCELLED.withDescription("agent interrupted");
    } catch (ExecutionException e) {
      return Status.fromThrowable(e.getCause());
    }
  }

  @Override
  public void beforeStart(ClientCallStreamObserver<AgentMessage> requestStream) {
    synchronized (sendLock) {
      this.requests = requestStream;
    }
  }

  @Override
  public void onNext(HubMessage message) {
    if (message.getPayloadCase() == HubMessage.PayloadCase.WELCOME) {
      onWelcome(message.getWelcome());
      return;
    }
    if (message.getPayloadCase() == HubMessage.PayloadCase.HEARTBEAT_ACK) {
      if (message.getHeartbeatAck().getSequence() == lastSequence) {
        rttMillis = Math.max(1, (System.nanoTime() - lastSentNanos) / 1_000_000);
      }
      return;
    }
    try {
      link.deliver(message);
    } catch (RuntimeException e) {
      // A faulty handler must not end the stream; the hub sees no answer and can ask again.
      log.error(
          "handling a {} message from the hub failed: {}",
          message.getPayloadCase(),
          Redactor.redact(e.toString()));
    }
  }

  private void onWelcome(Welcome welcome) {
    boolean first = welcomedAtNanos == 0;
    int interval = link.welcomed(welcome, identity, first);
    synchronized (sendLock) {
      if (heartbeats != null) {
        heartbeats.cancel(false);
      }
      intervalSeconds = interval;
      heartbeats = scheduleAtFixedRate(this::sendHeartbeat, interval);
    }
    if (first) {
      welcomedAtNanos = System.nanoTime();
    }
    link.connected();
  }

  private void sendHeartbeat() {
    long seq = sequence.incrementAndGet();
    AgentStatus status;
    try {
      status = link.status().toBuilder().setHeartbeatRttMillis(rttMillis).build();
    } catch (RuntimeException e) {
      status = AgentStatus.newBuilder().setHeartbeatRttMillis(rttMillis).build();
    }
    lastSentNanos = System.nanoTime();
    lastSequence = seq;
    boolean sent =
        send(
            AgentMessage.newBuilder()
                .setHeartbeat(
                    Heartbeat.newBuilder()
                        .setSequence(seq)
                        .setSentAt(HubLink.timestamp(Instant.now()))
                        .setStatus(status))
                .build());
    if (sent) {
      link.heartbeatSent();
      AgentMetrics.heartbeatSent();
    }
  }

  @Override
  public void onError(Throwable error) {
    ended.complete(Status.fromThrowable(error));
  }

  @Override
  public void onCompleted() {
    ended.complete(Status.UNAVAILABLE.withDescription("the hub closed the stream"));
  }

  /** Whether the stream takes a message without queueing it (gRPC flow control). */
  boolean ready() {
    ClientCallStreamObserver<AgentMessage> r = requests;
    return r != null && !ended.isDone() && r.isReady();
  }

  /** Sends a message; false if the stream is already gone. */
  boolean send(AgentMessage message) {
    synchronized (sendLock) {
      if (ended.isDone() || requests == null) {
        return false;
      }
      try {
        requests.onNext(message);
        return true;
      } catch (RuntimeException e) {
        // The call was cancelled or closed between the check and the send; the stream's end
        // is reported through onError, so this heartbeat is simply not counted.
        return false;
      }
    }
  }

  private void cancel(String reason) {
    synchronized (sendLock) {
      if (requests != null && !ended.isDone()) {
        requests.cancel(reason, null);
      }
    }
  }

  /** Half-closes the stream so the hub sees a clean goodbye; cancels it after a short grace. */
  void closeGracefully() {
    stopTimers();
    synchronized (sendLock) {
      if (requests != null && !ended.isDone()) {
        try {
          requests.onCompleted();
        } catch (RuntimeException e) {
          // Already closed by the hub; nothing left to say goodbye to.
        }
      }
    }
    try {
      ended.get(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      cancel("agent shutting down");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cancel("agent shutting down");
    }
  }

  private void stopTimers() {
    synchronized (sendLock) {
      if (heartbeats != null) {
        heartbeats.cancel(false);
      }
      if (welcomeTimeout != null) {
        welcomeTimeout.cancel(false);
      }
    }
  }

  private ScheduledFuture<?> schedule(Runnable task, long delayMillis) {
    try {
      return scheduler.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      return null;
    }
  }

  private ScheduledFuture<?> scheduleAtFixedRate(Runnable task, int seconds) {
    try {
      return scheduler.scheduleAtFixedRate(task, seconds, seconds, TimeUnit.SECONDS);
    } catch (RejectedExecutionException e) {
      return null;
    }
  }
}
