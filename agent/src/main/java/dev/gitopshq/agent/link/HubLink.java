package dev.gitopshq.agent.link;

import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.config.ExitCodes;
import dev.gitopshq.agent.identity.AgentIdentity;
import dev.gitopshq.agent.identity.ClientCredential;
import dev.gitopshq.agent.metrics.AgentMetrics;
import dev.gitopshq.agent.v1.AgentHubGrpc;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.AgentSettings;
import dev.gitopshq.agent.v1.AgentStatus;
import dev.gitopshq.agent.v1.ClientCertificate;
import dev.gitopshq.agent.v1.ClusterIdentity;
import dev.gitopshq.agent.v1.Hello;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.RegisterRequest;
import dev.gitopshq.agent.v1.RegisterResponse;
import dev.gitopshq.agent.v1.RenewCertificateRequest;
import dev.gitopshq.agent.v1.Welcome;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's side of {@code agent.v1.AgentHub}: registration, and the one long-lived Connect
 * stream with its heartbeats and reconnects.
 *
 * <p>{@link #register(String)} and {@link #run(AgentIdentity)} block the calling thread and retry
 * transient failures with {@link Backoff} (base 1 s, doubling, capped at {@code
 * GITOPSHQ_RECONNECT_MAX_SECONDS}, full jitter). They end in one of three ways: success (register)
 * or {@link #close()} (both), or a {@link LinkFailure} when the hub rejects a token or the
 * registration, which no amount of retrying fixes. Every other error, including a hub that is
 * restarting or unreachable, is retried for as long as the link is open.
 *
 * <p>The heartbeat interval is {@code GITOPSHQ_STATUS_INTERVAL_SECONDS} if set, else the hub's
 * latest setting (from RegisterResponse or Welcome), else 30 seconds. Heartbeats start when the hub
 * answers Hello with Welcome; a hub that does not answer within {@link #WELCOME_TIMEOUT} is treated
 * like a dropped stream.
 */
public final class HubLink implements AutoCloseable {

  /** How long the hub may take to answer Hello before the stream is abandoned and retried. */
  public static final Duration WELCOME_TIMEOUT = Duration.ofSeconds(30);

  private static final Logger log = LoggerFactory.getLogger(HubLink.class);
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Duration REGISTER_DEADLINE = Duration.ofSeconds(30);
  private static final Duration BACKOFF_BASE = Duration.ofSeconds(1);
  private static final String JOIN_TOKEN_HINT =
      "issue a new one with POST /api/v2/clusters/{id}/join-token";

  private final AgentConfig config;
  private final ManagedChannel channel;
  private final String agentVersion;
  private final Instant startedAt;
  private final ScheduledExecutorService scheduler;
  private final CountDownLatch closed = new CountDownLatch(1);
  private final HubMessageHandler handler;
  private final AtomicReference<AgentIdentity> identity = new AtomicReference<>();

  private final AtomicInteger registerCalls = new AtomicInteger();
  private final AtomicInteger connectAttempts = new AtomicInteger();
  private final AtomicLong heartbeatsSent = new AtomicLong();
  private final Object stateLock = new Object();
  private volatile boolean connected;
  private volatile String clusterId;
  private volatile int hubIntervalSeconds;
  private volatile ConnectSession current;
  private volatile Runnable onConnected = () -> {};
  private volatile Supplier<AgentStatus> status = HubLink::memoryStatus;
  private volatile Supplier<ClusterIdentity> clusterIdentity = () -> null;
  private volatile ClientKeys keys;

  /**
   * Creates the link; nothing is sent until {@link #register} or {@link #run} is called.
   *
   * @param channel the channel to the hub, owned by the caller
   * @param agentVersion the version reported in Register and Hello
   * @param startedAt the agent process's start time, reported in Hello
   */
  public HubLink(
      AgentConfig config, ManagedChannel channel, String agentVersion, Instant startedAt) {
    this(
        config,
        channel,
        agentVersion,
        startedAt,
        message -> log.debug("ignoring hub message with payload {}", message.getPayloadCase()));
  }

  /**
   * Creates the link with a handler for hub messages other than Welcome.
   *
   * @param handler receives every other hub message, e.g. ExecuteCommand; answers go back through
   *     {@link #send(AgentMessage)}
   */
  public HubLink(
      AgentConfig config,
      ManagedChannel channel,
      String agentVersion,
      Instant startedAt,
      HubMessageHandler handler) {
    this.config = config;
    this.channel = channel;
    this.agentVersion = agentVersion;
    this.startedAt = startedAt;
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "gitopshq-agent-heartbeat");
              thread.setDaemon(true);
              return thread;
            });
    this.handler = handler;
  }

  /**
   * Exchanges the registration token for the agent's identity, retrying transient failures.
   *
   * @return the hub's answer, or empty if the link was closed first
   * @throws LinkFailure with exit code 2 if the hub rejects the token (UNAUTHENTICATED) or the
   *     request (FAILED_PRECONDITION, INVALID_ARGUMENT), and with exit code 1 if it answers without
   *     an agent token
   */
  public Optional<RegisterResponse> register(String registrationToken) throws LinkFailure {
    return register(registrationToken, ByteString.EMPTY);
  }

  /**
   * Registers as {@link #register(String)} does, sending a CSR for the agent's client certificate
   * (empty: none); the response then carries the certificate, if the hub issues them.
   */
  public Optional<RegisterResponse> register(String registrationToken, ByteString csr)
      throws LinkFailure {
    RegisterRequest.Builder builder =
        RegisterRequest.newBuilder()
            .setClusterName(config.clusterName())
            .setDisplayName(config.displayName())
            .setProvider(config.provider())
            .setRegion(config.region())
            .setEnvironment(config.environment())
            .setAgentVersion(agentVersion)
            .addAllCapabilities(config.capabilities())
            .setCertificateRequest(csr);
    ClusterIdentity reported = clusterIdentity.get();
    if (reported != null) {
      builder.setIdentity(reported);
    }
    RegisterRequest request = builder.build();
    Backoff backoff = backoff();
    while (!stopping()) {
      if (registerCalls.incrementAndGet() == 1) {
        log.info("registering cluster '{}' with hub {}", config.clusterName(), config.hubAddress());
      }
      try {
        channel.resetConnectBackoff();
        RegisterResponse response =
            AgentHubGrpc.newBlockingStub(channel)
                .withInterceptors(bearer(registrationToken))
                .withDeadlineAfter(REGISTER_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
                .register(request);
        if (response.getClusterId().isBlank() || response.getAgentToken().isBlank()) {
          throw new LinkFailure(
              ExitCodes.IDENTITY_STORE,
              "the hub accepted the registration but sent no cluster id or"
                  + " agent token; the registration token is consumed, so "
                  + JOIN_TOKEN_HINT);
        }
        adoptHubSettings(response.getSettings());
        clusterId = response.getClusterId();
        log.info("registered as cluster {}", response.getClusterId());
        return Optional.of(response);
      } catch (StatusRuntimeException e) {
        if (stopping()) {
          break;
        }
        Status status = e.getStatus();
        switch (status.getCode()) {
          case UNAUTHENTICATED ->
              throw new LinkFailure(
                  ExitCodes.CONFIGURATION,
                  "registration token was rejected (unknown, expired or already used); "
                      + JOIN_TOKEN_HINT);
          case FAILED_PRECONDITION, INVALID_ARGUMENT ->
              throw new LinkFailure(
                  ExitCodes.CONFIGURATION,
                  "the hub refused the registration of cluster '"
                      + config.clusterName()
                      + "': "
                      + Redactor.redact(status.getDescription()));
          default -> {
            Duration delay = backoff.next();
            log.warn(
                "registration attempt failed ({}); retrying in {}",
                describe(status),
                seconds(delay));
            // The loop condition notices a close that ended the sleep early.
            sleep(delay);
          }
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Keeps the Connect stream open with the given identity until {@link #close()}, reconnecting
   * after every disconnect.
   *
   * @throws LinkFailure with exit code 3 if the hub rejects the agent token (UNAUTHENTICATED); the
   *     link does not try that identity again
   */
  public void run(AgentIdentity initial) throws LinkFailure {
    clusterId = initial.clusterId();
    identity.set(initial);
    Backoff backoff = backoff();
    ClientCredential presented = null;
    boolean first = true;
    while (!stopping()) {
      connectAttempts.incrementAndGet();
      AgentIdentity used = identity.get();
      ClientCredential wanted = usable(used.certificate());
      ClientKeys k = keys;
      if (k != null && (first || !Objects.equals(wanted, presented))) {
        k.use(wanted);
        presented = wanted;
        if (!first) {
          // The next stream must run on a new TLS connection, which presents the new certificate.
          channel.enterIdle();
        }
      }
      first = false;
      ConnectSession.End end = connect(used);
      if (stopping()) {
        return;
      }
      if (identity.get() != used) {
        // A rotated token or a renewed certificate (already persisted): the hub revoked what this
        // stream was opened with, or the agent ended it itself, so it reconnects at once.
        log.info("reconnecting with the agent's rotated token or renewed certificate");
        continue;
      }
      AgentIdentity identityForError = used;
      if (end.status().getCode() == Status.Code.UNAUTHENTICATED) {
        throw new LinkFailure(
            ExitCodes.IDENTITY_REJECTED,
            "the hub rejected the agent identity of cluster "
                + identityForError.clusterId()
                + " (token revoked or cluster deregistered); not retrying"
                + " with this identity. Register again: delete the stored identity and set"
                + " GITOPSHQ_REGISTRATION_TOKEN to a new join token (POST /api/v2/clusters/"
                + identityForError.clusterId()
                + "/join-token)");
      }
      // A stream that stayed up for two heartbeats proved the link healthy, so the next
      // disconnect starts the backoff over instead of waiting as long as after a flapping link.
      if (end.connectedFor().compareTo(Duration.ofSeconds(2L * end.intervalSeconds())) > 0) {
        backoff.reset();
      }
      Duration delay = backoff.next();
      log.warn(
          "disconnected from hub {} ({}); reconnecting in {}",
          config.hubAddress(),
          describe(end.status()),
          seconds(delay));
      if (sleep(delay)) {
        return;
      }
    }
  }

  /**
   * Sends a message to the hub on the current Connect stream, e.g. a CommandResult. Safe to call
   * from any thread.
   *
   * @return false if no stream is connected; the message is then dropped, and the hub is expected
   *     to ask again after the agent reconnects
   */
  public boolean send(AgentMessage message) {
    ConnectSession session = current;
    return session != null && session.welcomed() && session.send(message);
  }

  /**
   * Whether the current stream is welcomed and takes more without queueing; bulk senders (log
   * sessions) wait for it so heartbeats and results never queue behind them.
   */
  public boolean writable() {
    ConnectSession session = current;
    return session != null && session.welcomed() && session.ready();
  }

  /**
   * The client certificate to present: none when it has expired (the hub would refuse it; a renewal
   * with the token alone gets a new one where the organization allows that).
   */
  private static ClientCredential usable(ClientCredential c) {
    if (c == null) {
      return null;
    }
    if (!Instant.now().isBefore(c.notAfter())) {
      log.warn(
          "the client certificate {} expired at {}; connecting without it",
          c.serial(),
          c.notAfter());
      return null;
    }
    return c;
  }

  /** Presents the client certificates {@code keys} holds on every TLS connection (mutual TLS). */
  public void useClientKeys(ClientKeys keys) {
    this.keys = keys;
  }

  /** The identity the link connects with, once {@link #run} started. */
  public Optional<AgentIdentity> identity() {
    return Optional.ofNullable(identity.get());
  }

  /**
   * Asks the hub for a new client certificate for the key of {@code csr}, authenticated by the
   * agent token (and the current certificate over mutual TLS).
   *
   * @throws StatusRuntimeException as the hub answered (UNIMPLEMENTED from a hub without
   *     certificates)
   */
  public ClientCertificate renewCertificate(ByteString csr) {
    AgentIdentity used = identity.get();
    if (used == null) {
      throw Status.FAILED_PRECONDITION.withDescription("not registered").asRuntimeException();
    }
    return AgentHubGrpc.newBlockingStub(channel)
        .withInterceptors(bearer(used.agentToken()))
        .withDeadlineAfter(REGISTER_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)
        .renewCertificate(RenewCertificateRequest.newBuilder().setCertificateRequest(csr).build());
  }

  /**
   * Switches to an identity with a renewed certificate (already persisted): the current stream ends
   * cleanly and the next one, on a new TLS connection, presents the new certificate.
   */
  public void certificateRenewed(AgentIdentity next) {
    identity.set(next);
    ConnectSession session = current;
    if (session != null) {
      session.closeGracefully();
    }
  }

  /**
   * Switches to a rotated identity (already persisted). The current stream stays up; the next
   * connect, or the hub closing the stream opened with the old token, uses the new one.
   */
  public void rotated(AgentIdentity next) {
    identity.set(next);
  }

  /**
   * Runs {@code listener} whenever the hub welcomes a stream, on the stream's thread; it must
   * return quickly. The inventory uses it to send a fresh snapshot on every new stream.
   */
  public void onConnected(Runnable listener) {
    this.onConnected = listener;
  }

  /**
   * Supplies the agent's status for every heartbeat (the round trip is added by the stream); by
   * default only the JVM's heap.
   */
  public void onStatus(Supplier<AgentStatus> supplier) {
    this.status = supplier;
  }

  /**
   * Supplies the cluster's identity (API server URL hash, node count, version) for Register and
   * every Hello, which an admin sees before accepting the cluster; by default none is reported.
   */
  public void reportIdentity(Supplier<ClusterIdentity> supplier) {
    this.clusterIdentity = supplier;
  }

  /** The JVM's heap use, for a heartbeat's status. */
  public static AgentStatus memoryStatus() {
    Runtime rt = Runtime.getRuntime();
    return AgentStatus.newBuilder()
        .setHeapUsedBytes(rt.totalMemory() - rt.freeMemory())
        .setHeapMaxBytes(rt.maxMemory())
        .build();
  }

  /** True while a Connect stream is open and the hub has answered it with Welcome. */
  public boolean isConnected() {
    return connected;
  }

  /**
   * Waits until {@link #isConnected()} or the timeout.
   *
   * @return whether the link is connected
   */
  public boolean awaitConnected(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (stateLock) {
      while (!connected) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || isClosed()) {
          return connected;
        }
        TimeUnit.NANOSECONDS.timedWait(stateLock, left);
      }
      return true;
    }
  }

  /** The cluster id, once known from the stored identity, Register or Welcome. */
  public Optional<String> clusterId() {
    return Optional.ofNullable(clusterId);
  }

  /** How many Register calls were made. */
  public int registerCalls() {
    return registerCalls.get();
  }

  /** How many Connect streams were opened. */
  public int connectAttempts() {
    return connectAttempts.get();
  }

  /** How many heartbeats were sent, over all streams. */
  public long heartbeatsSent() {
    return heartbeatsSent.get();
  }

  /**
   * Ends the link: half-closes the open stream so the hub sees a clean goodbye, waits briefly for
   * it to finish, and makes {@link #register} and {@link #run} return. Idempotent. The channel is
   * the caller's to shut down afterwards.
   */
  @Override
  public void close() {
    if (isClosed()) {
      return;
    }
    closed.countDown();
    synchronized (stateLock) {
      stateLock.notifyAll();
    }
    ConnectSession session = current;
    if (session != null) {
      session.closeGracefully();
    }
    scheduler.shutdownNow();
  }

  /** Opens one Connect stream with the identity and waits for it to end. */
  private ConnectSession.End connect(AgentIdentity used) {
    Hello.Builder builder =
        Hello.newBuilder()
            .setAgentVersion(agentVersion)
            .addAllCapabilities(config.capabilities())
            .setHeartbeatIntervalSeconds(intervalSeconds())
            .setStartedAt(timestamp(startedAt))
            .addAllDiagnosticsNamespaces(config.diagnosticsNamespaces());
    ClusterIdentity reported = clusterIdentity.get();
    if (reported != null) {
      builder.setIdentity(reported);
    }
    Hello hello = builder.build();
    ConnectSession session = new ConnectSession(used, hello, scheduler, new SessionLink());
    current = session;
    try {
      // The link's own backoff paces the attempts; without this the channel adds its hidden
      // reconnect backoff (up to 2 minutes) and fails the attempt at once while that runs, which
      // stretched the fleet's return after a hub restart (bench/run-fleet.sh --storm).
      channel.resetConnectBackoff();
      return session.run(channel);
    } finally {
      setConnected(false);
      current = null;
    }
  }

  /** What a Connect stream reports back to the link. */
  private final class SessionLink implements ConnectSession.Link {
    @Override
    public boolean closed() {
      return isClosed();
    }

    @Override
    public int welcomed(Welcome welcome, AgentIdentity used, boolean first) {
      adoptHubSettings(welcome.getSettings());
      int interval = intervalSeconds();
      if (!welcome.getClusterId().isBlank()) {
        if (!welcome.getClusterId().equals(used.clusterId())) {
          log.warn(
              "the hub welcomed this agent as cluster {} but the stored identity says {}",
              welcome.getClusterId(),
              used.clusterId());
        }
        clusterId = welcome.getClusterId();
      }
      if (first) {
        log.info(
            "connected to hub {} as cluster {} (hub version {}; heartbeat every {} s)",
            config.hubAddress(),
            clusterId,
            blankAsUnknown(welcome.getHubVersion()),
            interval);
      }
      if (welcome.getPendingAcceptance()) {
        log.info(
            "cluster {} waits for an organization admin to accept it in the hub; until then the"
                + " hub sends no work",
            clusterId);
      }
      return interval;
    }

    @Override
    public void connected() {
      setConnected(true);
      AgentMetrics.connected();
      onConnected.run();
    }

    @Override
    public void heartbeatSent() {
      heartbeatsSent.incrementAndGet();
    }

    @Override
    public void deliver(HubMessage message) {
      handler.onMessage(message);
    }

    @Override
    public AgentStatus status() {
      return status.get();
    }
  }

  private boolean isClosed() {
    return closed.getCount() == 0;
  }

  /** Closed, or the calling thread was interrupted, which the agent only does to stop it. */
  private boolean stopping() {
    return isClosed() || Thread.currentThread().isInterrupted();
  }

  /** Sleeps for the delay; returns true if the link was closed meanwhile. */
  private boolean sleep(Duration delay) {
    try {
      return closed.await(delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  private Backoff backoff() {
    return new Backoff(
        BACKOFF_BASE,
        Duration.ofSeconds(config.reconnectMaxSeconds()),
        () -> ThreadLocalRandom.current().nextDouble());
  }

  private void adoptHubSettings(AgentSettings settings) {
    if (settings != null && settings.getHeartbeatIntervalSeconds() > 0) {
      hubIntervalSeconds = settings.getHeartbeatIntervalSeconds();
    }
  }

  /** The heartbeat interval: configured, else the hub's latest setting, else the default. */
  private int intervalSeconds() {
    if (config.statusIntervalSeconds().isPresent()) {
      return config.statusIntervalSeconds().getAsInt();
    }
    int fromHub = hubIntervalSeconds;
    return fromHub > 0 ? fromHub : AgentConfig.DEFAULT_STATUS_INTERVAL_SECONDS;
  }

  private void setConnected(boolean value) {
    synchronized (stateLock) {
      connected = value;
      stateLock.notifyAll();
    }
  }

  static ClientInterceptor bearer(String token) {
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, "Bearer " + token);
    return MetadataUtils.newAttachHeadersInterceptor(headers);
  }

  static Timestamp timestamp(Instant instant) {
    return Timestamp.newBuilder()
        .setSeconds(instant.getEpochSecond())
        .setNanos(instant.getNano())
        .build();
  }

  /**
   * A status on one line as "CODE: description (root cause)", with anything token-shaped removed.
   * The root cause is what an operator can act on, e.g. "Connection refused" or a certificate path
   * error, while gRPC's own description is often generic.
   */
  static String describe(Status status) {
    StringBuilder text = new StringBuilder(status.getCode().name());
    if (status.getDescription() != null) {
      text.append(": ").append(firstLine(status.getDescription()));
    }
    Throwable root = status.getCause();
    while (root != null && root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root != null && root.getMessage() != null) {
      text.append(" (").append(firstLine(root.getMessage())).append(')');
    }
    return Redactor.redact(text.toString());
  }

  private static String firstLine(String text) {
    int newline = text.indexOf('\n');
    return (newline < 0 ? text : text.substring(0, newline)).trim();
  }

  private static String seconds(Duration delay) {
    return String.format("%.1f s", delay.toMillis() / 1000.0);
  }

  private static String blankAsUnknown(String value) {
    return value == null || value.isBlank() ? "unknown" : value;
  }
}
