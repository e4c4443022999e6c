package dev.gitopshq.agent;

import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.config.Capability;
import dev.gitopshq.agent.config.ConfigException;
import dev.gitopshq.agent.config.DirectDeployConfig;
import dev.gitopshq.agent.config.ExitCodes;
import dev.gitopshq.agent.config.IdentityStoreMode;
import dev.gitopshq.agent.identity.FileIdentityStore;
import dev.gitopshq.agent.identity.IdentityStore;
import dev.gitopshq.agent.identity.SecretIdentityStore;
import dev.gitopshq.agent.inventory.InventoryFeed;
import dev.gitopshq.agent.kube.ClusterIdentityReport;
import dev.gitopshq.agent.link.ClientKeys;
import dev.gitopshq.agent.link.HubChannels;
import dev.gitopshq.agent.link.HubLink;
import dev.gitopshq.agent.logs.LogStreams;
import dev.gitopshq.agent.metrics.MetricsServer;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.HubMessage;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.grpc.ManagedChannel;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running GitOpsHQ agent: the programmatic entry point used by {@link AgentMain} and by tests
 * that drive the real agent against a real or fake hub.
 *
 * <pre>{@code
 * AgentConfig config = AgentConfig.fromEnv(Map.of(
 *     "GITOPSHQ_HUB_ADDRESS", "127.0.0.1:" + hubPort,
 *     "GITOPSHQ_HUB_PLAINTEXT", "true",
 *     "GITOPSHQ_REGISTRATION_TOKEN", registrationToken,
 *     "GITOPSHQ_AGENT_TOKEN_PATH", tempDir.resolve("agent.json").toString(),
 *     "GITOPSHQ_CLUSTER_NAME", "prod-eu",
 *     "GITOPSHQ_STATUS_INTERVAL_SECONDS", "1"));
 * try (Agent agent = Agent.start(config, testKube::client)) {
 *   assertThat(agent.awaitConnected(Duration.ofSeconds(10))).isTrue();
 *   String clusterId = agent.clusterId().orElseThrow();
 *   ...
 * }
 * }</pre>
 *
 * <p>{@link #start} returns at once; the agent works on its own thread. It loads its identity; if
 * there is none it registers with {@code GITOPSHQ_REGISTRATION_TOKEN} and persists the result; then
 * it keeps the Connect stream to the hub open, reconnecting with backoff, until {@link #close()} or
 * until it gives up. Giving up completes {@link #exitCode()} with:
 *
 * <ul>
 *   <li>{@value #EXIT_IDENTITY_STORE} — the identity could not be loaded, or could not be saved
 *       after registering (the registration token is then consumed; a new join token is needed);
 *   <li>{@value #EXIT_CONFIGURATION} — no identity and no registration token, or the hub rejected
 *       the registration token (UNAUTHENTICATED) or the registration (FAILED_PRECONDITION,
 *       INVALID_ARGUMENT);
 *   <li>{@value #EXIT_IDENTITY_REJECTED} — the hub rejected the stored agent token on Connect
 *       (revoked, or the cluster was deregistered); the agent does not retry it.
 * </ul>
 *
 * <p>{@link #close()} ends the stream cleanly and completes {@link #exitCode()} with {@value
 * #EXIT_OK} unless it had already completed. No token is ever logged.
 *
 * <p>The agent is put together from: {@link AgentLifecycle} (identity, registration, the link's
 * run), {@link HubLink} (the Connect stream), {@link HubRequests} (the dispatch table of the hub's
 * requests and the one job runner that answers them), {@link InventoryFeed} (with {@code observe})
 * and the metrics endpoint. Each owns its threads.
 */
public final class Agent implements AutoCloseable {

  /** The agent was stopped by {@link #close()} (or a signal). */
  public static final int EXIT_OK = ExitCodes.OK;

  /** The identity store failed. */
  public static final int EXIT_IDENTITY_STORE = ExitCodes.IDENTITY_STORE;

  /** Configuration error, missing credentials, or the registration was rejected. */
  public static final int EXIT_CONFIGURATION = ExitCodes.CONFIGURATION;

  /** The hub rejected the agent's identity. */
  public static final int EXIT_IDENTITY_REJECTED = ExitCodes.IDENTITY_REJECTED;

  private static final Logger log = LoggerFactory.getLogger(Agent.class);
  private static final Duration STORE_RETRY_DELAY = Duration.ofMillis(250);
  private static final Duration IN_FLIGHT_GRACE = Duration.ofSeconds(1);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  private final IdentityStore store;
  private final ManagedChannel channel;
  private final HubLink link;
  private final MetricsServer metrics;
  private final LazyKube kube;
  private final InventoryFeed inventory;
  private final HubRequests requests;
  private final AgentLifecycle lifecycle;
  private final CertificateRenewal renewal;
  private final CompletableFuture<Integer> exitCode = new CompletableFuture<>();
  private final Thread thread;

  private Agent(
      AgentConfig config,
      DirectDeployConfig direct,
      Supplier<KubernetesClient> kubeSupplier,
      boolean ownsKube) {
    Clock clock = Clock.systemUTC();
    this.kube = new LazyKube(kubeSupplier, ownsKube);
    this.store =
        config.identityStoreMode() == IdentityStoreMode.FILE
            ? new FileIdentityStore(config.agentTokenPath())
            : new SecretIdentityStore(
                kube, config.identitySecretNamespace(), config.identitySecretName());
    String version = AgentVersion.current();
    ClientKeys keys = config.hubPlaintext() ? null : new ClientKeys();
    this.channel = HubChannels.create(config, version, keys);
    this.link = new HubLink(config, channel, version, Instant.now(), this::onHubMessage);
    link.useClientKeys(keys);
    link.reportIdentity(new ClusterIdentityReport(kube, config.clusterLabels()));
    this.metrics =
        config.metricsPort() > 0
            ? new MetricsServer(config.metricsPort(), link::isConnected)
            : null;
    IdentityKeeper identities = new IdentityKeeper(store, STORE_RETRY_DELAY);
    if (config.capabilities().contains(Capability.OBSERVE.seedName())) {
      this.inventory = new InventoryFeed(kube, link::send, link::isConnected, clock);
      link.onConnected(inventory::snapshotDue);
      link.onStatus(() -> inventory.status(HubLink.memoryStatus()));
    } else {
      this.inventory = null;
    }
    this.requests =
        new HubRequests(
            config,
            direct,
            kube,
            new LogStreams.Outbound() {
              @Override
              public boolean send(AgentMessage message) {
                return link.send(message);
              }

              @Override
              public boolean writable() {
                return link.writable();
              }
            },
            new TokenRotation(identities, clock, link::rotated),
            inventory,
            clock);
    this.lifecycle = new AgentLifecycle(config, link, identities);
    this.renewal = keys == null ? null : new CertificateRenewal(identities, link, clock);
    this.thread = new Thread(this::runLifecycle, "gitopshq-agent");
  }

  /**
   * Starts an agent that creates its own Kubernetes client (in-cluster configuration, or {@code
   * KUBECONFIG}) when it first needs one, and closes it on {@link #close()}.
   *
   * @throws ConfigException if the TLS settings cannot be used (e.g. an unreadable CA file)
   */
  public static Agent start(AgentConfig config) {
    return start(
        config, DirectDeployConfig.defaults(), () -> new KubernetesClientBuilder().build(), true);
  }

  /**
   * Starts an agent as {@link #start(AgentConfig)} does, with the chart's {@code directDeploy.*}
   * values.
   */
  public static Agent start(AgentConfig config, DirectDeployConfig direct) {
    return start(config, direct, () -> new KubernetesClientBuilder().build(), true);
  }

  /** Starts an agent with a caller's Kubernetes client and the given direct-deploy values. */
  public static Agent start(
      AgentConfig config, DirectDeployConfig direct, Supplier<KubernetesClient> kubernetes) {
    return start(config, direct, kubernetes, false);
  }

  /**
   * Starts an agent with a Kubernetes client supplied by the caller, e.g. a TestKube's {@code
   * client()}. The supplier is called lazily, at most once; the caller keeps ownership of the
   * client.
   *
   * @throws ConfigException if the TLS settings cannot be used (e.g. an unreadable CA file)
   */
  public static Agent start(AgentConfig config, Supplier<KubernetesClient> kubernetes) {
    return start(config, DirectDeployConfig.defaults(), kubernetes, false);
  }

  private static Agent start(
      AgentConfig config,
      DirectDeployConfig direct,
      Supplier<KubernetesClient> kube,
      boolean owns) {
    Agent agent = new Agent(config, direct, kube, owns);
    agent.lifecycle.logStartup();
    agent.thread.start();
    if (agent.renewal != null) {
      agent.renewal.start(CertificateRenewal.CHECK_EVERY);
    }
    return agent;
  }

  /**
   * Waits until the agent is connected (the hub answered Hello with Welcome) or the timeout passes
   * or the agent gives up.
   *
   * @return whether the agent is connected
   */
  public boolean awaitConnected(Duration timeout) throws InterruptedException {
    return link.awaitConnected(timeout);
  }

  /** The port of {@code GET /metrics}, when {@code GITOPSHQ_METRICS_PORT} asked for one. */
  public OptionalInt metricsPort() {
    return metrics == null ? OptionalInt.empty() : OptionalInt.of(metrics.port());
  }

  /** True while the Connect stream is open and welcomed by the hub. */
  public boolean isConnected() {
    return link.isConnected();
  }

  /** The hub's id of this cluster, once known from the stored identity or the hub. */
  public Optional<String> clusterId() {
    return link.clusterId();
  }

  /** How many Register calls this agent made (0 when it started with a stored identity). */
  public int registerCalls() {
    return link.registerCalls();
  }

  /** How many Connect streams this agent opened, including failed attempts. */
  public int connectAttempts() {
    return link.connectAttempts();
  }

  /** How many heartbeats this agent sent, over all streams. */
  public long heartbeatsSent() {
    return link.heartbeatsSent();
  }

  /** Where the identity is kept, e.g. {@code file /tmp/gitopshq-agent-token}. */
  public String identityLocation() {
    return store.location();
  }

  /**
   * Completes with the process exit code when the agent stops: {@value #EXIT_OK} after {@link
   * #close()}, otherwise the code of the failure it gave up on (see the class Javadoc).
   */
  public CompletableFuture<Integer> exitCode() {
    return exitCode;
  }

  /**
   * Stops the agent: half-closes the Connect stream so the hub sees a clean disconnect, stops
   * retrying, and releases the channel (and the Kubernetes client if the agent created it).
   * Idempotent; returns within a few seconds.
   */
  @Override
  public void close() {
    boolean running = !exitCode.isDone();
    if (renewal != null) {
      renewal.close();
    }
    link.close();
    try {
      // A Register call in flight gets a moment to finish, so that an identity the hub has
      // already issued is still saved; after that the channel is cut to end any blocked call.
      thread.join(IN_FLIGHT_GRACE.toMillis());
      if (thread.isAlive()) {
        channel.shutdownNow();
        thread.join(CLOSE_TIMEOUT.toMillis());
      }
      if (thread.isAlive()) {
        thread.interrupt();
        thread.join(CLOSE_TIMEOUT.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    release();
    if (metrics != null) {
      metrics.close();
    }
    exitCode.complete(EXIT_OK);
    if (running) {
      log.info("agent stopped");
    }
  }

  private void runLifecycle() {
    int code = lifecycle.run();
    if (code != EXIT_OK) {
      link.close();
      release();
    }
    exitCode.complete(code);
  }

  /** Hub messages other than Welcome, on the gRPC thread: the dispatch table handles them. */
  private void onHubMessage(HubMessage message) {
    requests.onHubMessage(message);
  }

  /** How many direct applies reached the cluster (repeats, refusals and expiries excluded). */
  public int directAppliesExecuted() {
    return requests.directAppliesExecuted();
  }

  /** How many commands reached the cluster (repeats, refusals and expiries excluded). */
  public int commandsExecuted() {
    return requests.commandsExecuted();
  }

  /** How many log sessions the agent is reading now (a session the hub closed is gone). */
  public int openLogStreams() {
    return requests.openLogStreams();
  }

  /** How many objects the agent's inventory holds (0 without the observe capability). */
  public int inventorySize() {
    return inventory == null ? 0 : inventory.size();
  }

  private void release() {
    requests.close();
    if (inventory != null) {
      inventory.close();
    }
    channel.shutdown();
    try {
      if (!channel.awaitTermination(2, TimeUnit.SECONDS)) {
        channel.shutdownNow();
      }
    } catch (InterruptedException e) {
      channel.shutdownNow();
      Thread.currentThread().interrupt();
    }
    kube.close();
  }
}
