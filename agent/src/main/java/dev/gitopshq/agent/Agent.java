package dev.gitopshq.agent;

import dev.gitopshq.agent.adapters.AdapterWiring;
import dev.gitopshq.agent.adapters.ReconcileRequests;
import dev.gitopshq.agent.commands.CommandRunner;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.config.Capability;
import dev.gitopshq.agent.config.ConfigException;
import dev.gitopshq.agent.config.DirectDeployConfig;
import dev.gitopshq.agent.config.ExitCodes;
import dev.gitopshq.agent.config.IdentityStoreMode;
import dev.gitopshq.agent.credentials.CredentialSync;
import dev.gitopshq.agent.deploy.DirectDeployer;
import dev.gitopshq.agent.drift.DriftChecker;
import dev.gitopshq.agent.identity.AgentIdentity;
import dev.gitopshq.agent.identity.FileIdentityStore;
import dev.gitopshq.agent.identity.IdentityStore;
import dev.gitopshq.agent.identity.SecretIdentityStore;
import dev.gitopshq.agent.inspect.ArgoApplicationsReader;
import dev.gitopshq.agent.inspect.Inspector;
import dev.gitopshq.agent.inventory.InventoryPublisher;
import dev.gitopshq.agent.inventory.InventoryWatch;
import dev.gitopshq.agent.kube.ClusterIdentityReport;
import dev.gitopshq.agent.kube.CredentialWriter;
import dev.gitopshq.agent.kube.KubeCommands;
import dev.gitopshq.agent.link.HubChannels;
import dev.gitopshq.agent.link.HubLink;
import dev.gitopshq.agent.link.LinkFailure;
import dev.gitopshq.agent.link.Redactor;
import dev.gitopshq.agent.logs.LogStreams;
import dev.gitopshq.agent.metrics.MetricsServer;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.ApplyResult;
import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.CheckDrift;
import dev.gitopshq.agent.v1.CommandResult;
import dev.gitopshq.agent.v1.DriftReport;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.ListApplications;
import dev.gitopshq.agent.v1.ReadResource;
import dev.gitopshq.agent.v1.RegisterResponse;
import dev.gitopshq.agent.v1.ResourceDetail;
import dev.gitopshq.agent.v1.RotateToken;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.grpc.ManagedChannel;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
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
  private static final Duration INVENTORY_FLUSH = Duration.ofSeconds(1);

  private final AgentConfig config;
  private final IdentityStore store;
  private final IdentityKeeper identities;
  private final TokenRotation tokenRotation;
  private final ManagedChannel channel;
  private final HubLink link;
  private final MetricsServer metrics;
  private final CommandRunner commands;
  private final ExecutorService rotations =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "gitopshq-token-rotation");
            t.setDaemon(true);
            return t;
          });
  private final LazyClient kube;
  private final InventoryPublisher inventory;
  private final Inspector inspector;
  private final ArgoApplicationsReader argoApplications;
  private final CredentialSync credentials;
  private final DirectDeployer directDeployer;
  private final LogStreams logStreams;
  private final AdapterWiring adapterWiring;
  private final ReconcileRequests reconcileRequests;

  /** Two threads and a short queue: a burst of inspections is refused, never queued unbounded. */
  private final ThreadPoolExecutor inspections =
      new ThreadPoolExecutor(
          2,
          2,
          30,
          TimeUnit.SECONDS,
          new ArrayBlockingQueue<>(16),
          r -> {
            Thread t = new Thread(r, "gitopshq-inspect");
            t.setDaemon(true);
            return t;
          });

  /** One drift check at a time, and at most two waiting: more are answered "busy". */
  private final ThreadPoolExecutor driftChecks =
      new ThreadPoolExecutor(
          1,
          1,
          30,
          TimeUnit.SECONDS,
          new ArrayBlockingQueue<>(2),
          r -> {
            Thread t = new Thread(r, "gitopshq-drift");
            t.setDaemon(true);
            return t;
          });

  private final DriftChecker drift;

  private final InventoryWatch inventoryWatch;
  private final ScheduledExecutorService inventoryFlusher;
  private final CompletableFuture<Integer> exitCode = new CompletableFuture<>();
  private final Thread thread;

  private Agent(
      AgentConfig config,
      DirectDeployConfig direct,
      Supplier<KubernetesClient> kubeSupplier,
      boolean ownsKube) {
    this.config = config;
    this.kube = new LazyClient(kubeSupplier, ownsKube);
    this.directDeployer =
        new DirectDeployer(
            config.capabilities().contains(Capability.DIRECT_DEPLOY.seedName()),
            direct,
            kube,
            Clock.systemUTC(),
            this::replyApply);
    this.store =
        config.identityStoreMode() == IdentityStoreMode.FILE
            ? new FileIdentityStore(config.agentTokenPath())
            : new SecretIdentityStore(
                kube, config.identitySecretNamespace(), config.identitySecretName());
    String version = AgentVersion.current();
    this.channel = HubChannels.create(config, version);
    // Drift checks and resolve-drift use the direct-deploy field manager
    // (directDeploy.fieldManager)
    // for objects no Argo CD Application manages.
    this.drift = new DriftChecker(kube, direct.fieldManager(), Clock.systemUTC());
    this.commands =
        new CommandRunner(
            capabilitySet(config.capabilities()),
            new KubeCommands(kube),
            drift::apply,
            Clock.systemUTC(),
            this::reply);
    this.link = new HubLink(config, channel, version, Instant.now(), this::onHubMessage);
    link.reportIdentity(new ClusterIdentityReport(kube));
    this.metrics =
        config.metricsPort() > 0
            ? new MetricsServer(config.metricsPort(), link::isConnected)
            : null;
    this.identities = new IdentityKeeper(store, STORE_RETRY_DELAY);
    this.tokenRotation =
        new TokenRotation(
            identities,
            config.capabilities().contains(Capability.TOKEN_ROTATE.seedName()),
            Clock.systemUTC(),
            link::rotated);
    this.thread = new Thread(this::runLifecycle, "gitopshq-agent");
    this.inspector =
        new Inspector(
            kube,
            config::diagnosticsAllowed,
            config.capabilities().contains(Capability.DIAGNOSTICS_READ.seedName()));
    this.argoApplications = new ArgoApplicationsReader(kube, config.argocdServer());
    this.credentials =
        new CredentialSync(
            config.capabilities().contains(Capability.CREDENTIAL_SYNC.seedName()),
            config.credentialSyncTargets(),
            new CredentialWriter(kube),
            link::send);
    boolean wire = config.capabilities().contains(Capability.ADAPTER_WIRE.seedName());
    this.adapterWiring = new AdapterWiring(wire, kube, link::send);
    this.reconcileRequests = new ReconcileRequests(wire, kube, Clock.systemUTC());
    this.logStreams =
        new LogStreams(
            kube,
            config::diagnosticsAllowed,
            config.capabilities().contains(Capability.DIAGNOSTICS_READ.seedName()),
            new LogStreams.Outbound() {
              @Override
              public boolean send(AgentMessage message) {
                return link.send(message);
              }

              @Override
              public boolean writable() {
                return link.writable();
              }
            });
    if (config.capabilities().contains(Capability.OBSERVE.seedName())) {
      this.inventory = new InventoryPublisher(link::send, Clock.systemUTC());
      this.inventoryWatch = new InventoryWatch(kube, inventory);
      this.inventoryFlusher =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "gitopshq-inventory");
                t.setDaemon(true);
                return t;
              });
      link.onConnected(inventory::snapshotDue);
      link.onStatus(
          () ->
              HubLink.memoryStatus().toBuilder()
                  .setInventoryObjects(inventory.size())
                  .setInventorySynced(inventoryWatch.synced())
                  .addAllInventoryUnavailable(inventoryWatch.unavailable())
                  .build());
      inventoryFlusher.scheduleWithFixedDelay(
          this::flushInventory,
          INVENTORY_FLUSH.toMillis(),
          INVENTORY_FLUSH.toMillis(),
          TimeUnit.MILLISECONDS);
    } else {
      this.inventory = null;
      this.inventoryWatch = null;
      this.inventoryFlusher = null;
    }
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
    agent.logStartup();
    agent.thread.start();
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

  private void logStartup() {
    String transport =
        config.hubPlaintext()
            ? "plaintext"
            : config.hubInsecure()
                ? "TLS without certificate verification"
                : config.hubCaFile().map(ca -> "TLS (system trust + " + ca + ")").orElse("TLS");
    log.info(
        "GitOpsHQ agent {} starting: hub={} ({}), cluster={}, identity={}, capabilities={}",
        AgentVersion.current(),
        config.hubAddress(),
        transport,
        config.clusterName(),
        store.location(),
        String.join(",", config.capabilities()));
    if (config.hubInsecure()) {
      log.warn(
          "WARNING: {}=true: the hub's TLS certificate is not verified, so anyone on the"
              + " network path can impersonate the hub; use this for development only",
          AgentConfig.HUB_INSECURE);
    }
  }

  private void runLifecycle() {
    int code;
    try {
      code = lifecycle();
    } catch (LinkFailure failure) {
      log.error("{}", failure.getMessage());
      code = failure.exitCode();
    } catch (RuntimeException e) {
      log.error("the agent stopped on an unexpected error: {}", Redactor.redact(e.toString()));
      code = EXIT_IDENTITY_STORE;
    }
    if (code != EXIT_OK) {
      link.close();
      release();
    }
    exitCode.complete(code);
  }

  private int lifecycle() throws LinkFailure {
    Optional<AgentIdentity> stored = identities.load();
    AgentIdentity identity;
    if (stored.isPresent()) {
      identity = stored.get();
      log.info(
          "using the stored identity of cluster {} from {}",
          identity.clusterId(),
          store.location());
      if (!identity.hubAddress().equals(config.hubAddress())) {
        log.warn(
            "the stored identity was issued by hub {} but {} is {}; connecting to {}",
            identity.hubAddress(),
            AgentConfig.HUB_ADDRESS,
            config.hubAddress(),
            config.hubAddress());
      }
    } else {
      Optional<String> registrationToken = config.registrationToken();
      if (registrationToken.isEmpty()) {
        throw new LinkFailure(
            EXIT_CONFIGURATION,
            "no identity found at "
                + store.location()
                + " and "
                + AgentConfig.REGISTRATION_TOKEN
                + " is not set; create a join token with"
                + " POST /api/v2/clusters/{id}/join-token");
      }
      Optional<RegisterResponse> response = link.register(registrationToken.get());
      if (response.isEmpty()) {
        return EXIT_OK;
      }
      identity =
          new AgentIdentity(
              response.get().getClusterId(),
              response.get().getAgentToken(),
              config.hubAddress(),
              Instant.now());
      identities.saveRegistered(identity);
    }
    link.run(identity);
    return EXIT_OK;
  }

  /**
   * Starts the informers once the hub has welcomed the agent (so a cluster that never connects is
   * never listed), then sends what the inventory has due. Runs on the inventory's own thread.
   */
  private void flushInventory() {
    try {
      if (!link.isConnected()) {
        return;
      }
      inventoryWatch.start();
      inventory.flush();
    } catch (RuntimeException e) {
      log.warn("inventory: {}", Redactor.redact(e.toString()));
    }
  }

  /**
   * Reads an object for the hub on the inspection threads; refuses without observe or when busy.
   */
  private void inspect(ReadResource req) {
    if (!config.capabilities().contains(Capability.OBSERVE.seedName())) {
      answer(
          ResourceDetail.newBuilder()
              .setRequestId(req.getRequestId())
              .setOutcome(ResourceDetail.Outcome.FORBIDDEN)
              .setError("the observe capability is off on this agent")
              .build());
      return;
    }
    try {
      inspections.execute(
          () -> {
            try {
              answer(inspector.read(req));
            } catch (RuntimeException e) {
              answer(
                  ResourceDetail.newBuilder()
                      .setRequestId(req.getRequestId())
                      .setOutcome(ResourceDetail.Outcome.FAILED)
                      .setError(Redactor.redact(e.toString()))
                      .build());
            }
          });
    } catch (RejectedExecutionException e) {
      answer(
          ResourceDetail.newBuilder()
              .setRequestId(req.getRequestId())
              .setOutcome(ResourceDetail.Outcome.FAILED)
              .setError("the agent is busy with other inspections; try again")
              .build());
    }
  }

  /** Lists the Argo CD Applications on the inspection threads; refuses without argocd.read. */
  /**
   * Compares the desired objects with the live ones (capability observe: the check reads them; the
   * server-side-apply dry run changes nothing).
   */
  private void checkDrift(CheckDrift req) {
    if (!config.capabilities().contains(Capability.OBSERVE.seedName())) {
      sendDrift(
          DriftReport.newBuilder()
              .setCheckId(req.getCheckId())
              .setError("the observe capability is off on this agent")
              .build());
      return;
    }
    try {
      driftChecks.execute(() -> sendDrift(drift.check(req)));
    } catch (RejectedExecutionException e) {
      sendDrift(
          DriftReport.newBuilder()
              .setCheckId(req.getCheckId())
              .setError("the agent is busy with other drift checks; try again")
              .build());
    }
  }

  private void sendDrift(DriftReport report) {
    link.send(
        AgentMessage.newBuilder()
            .setCorrelationId(report.getCheckId())
            .setDriftReport(report)
            .build());
  }

  private void listApplications(ListApplications req) {
    ArgoApplications refused =
        ArgoApplications.newBuilder()
            .setRequestId(req.getRequestId())
            .setForbidden(true)
            .setError("the argocd.read and observe capabilities are off on this agent")
            .build();
    boolean argo = config.capabilities().contains(Capability.ARGOCD_READ.seedName());
    boolean flux = config.capabilities().contains(Capability.OBSERVE.seedName());
    if (!argo && !flux) {
      sendApplications(refused);
      return;
    }
    try {
      inspections.execute(() -> sendApplications(argoApplications.list(req, argo, flux)));
    } catch (RejectedExecutionException e) {
      sendApplications(
          ArgoApplications.newBuilder()
              .setRequestId(req.getRequestId())
              .setError("the agent is busy with other inspections; try again")
              .build());
    }
  }

  private void sendApplications(ArgoApplications apps) {
    link.send(
        AgentMessage.newBuilder()
            .setCorrelationId(apps.getRequestId())
            .setArgoApplications(apps)
            .build());
  }

  private void answer(ResourceDetail detail) {
    link.send(
        AgentMessage.newBuilder()
            .setCorrelationId(detail.getRequestId())
            .setResourceDetail(detail)
            .build());
  }

  /** Hub messages other than Welcome: commands go to the runner's own thread. */
  private void onHubMessage(HubMessage message) {
    switch (message.getPayloadCase()) {
      case OPEN_LOG_STREAM -> logStreams.open(message.getOpenLogStream());
      case LOG_STREAM_CONTROL -> logStreams.control(message.getLogStreamControl());
      case READ_RESOURCE -> inspect(message.getReadResource());
      case LIST_APPLICATIONS -> listApplications(message.getListApplications());
      case REFRESH_INVENTORY -> {
        if (inventory != null) {
          inventory.snapshotDue();
        }
      }
      case EXECUTE_COMMAND -> commands.submit(message.getExecuteCommand());
      case SYNC_CREDENTIAL -> credentials.submit(message.getSyncCredential());
      case PRUNE_CREDENTIALS -> credentials.submit(message.getPruneCredentials());
      case APPLY_RELEASE -> directDeployer.submit(message.getApplyRelease());
      case WIRE_ADAPTERS -> adapterWiring.submit(message.getWireAdapters());
      case REQUEST_RECONCILE ->
          reconcileRequests.submit(message.getRequestReconcile(), inspections, link::send);
      case CHECK_DRIFT -> checkDrift(message.getCheckDrift());
      case ROTATE_TOKEN -> {
        RotateToken rotation = message.getRotateToken();
        // Persisting may call the Kubernetes API: not on the gRPC thread.
        rotations.execute(() -> rotate(rotation));
      }
      default -> {
        // Welcome and heartbeat answers are the link's; a newer hub's messages are ignored.
      }
    }
  }

  private void rotate(RotateToken rotation) {
    link.send(
        AgentMessage.newBuilder()
            .setCorrelationId(rotation.getRotationId())
            .setTokenRotated(tokenRotation.handle(rotation))
            .build());
  }

  /**
   * Sends a command's result. If the stream is down it is dropped here: the hub re-sends the
   * command after the reconnect, and the runner answers the repeat from memory.
   */
  private void reply(CommandResult result) {
    boolean sent =
        link.send(
            AgentMessage.newBuilder()
                .setCorrelationId(result.getCommandId())
                .setCommandResult(result)
                .build());
    if (!sent) {
      log.info(
          "result of command {} not sent (not connected); the hub will ask again",
          result.getCommandId());
    }
  }

  /**
   * Sends a direct apply's result. If the stream is down it is dropped here: the hub re-sends the
   * apply after the reconnect, and the deployer answers the repeat from memory.
   */
  private void replyApply(ApplyResult result) {
    if (!link.send(
        AgentMessage.newBuilder()
            .setCorrelationId(result.getApplyId())
            .setApplyResult(result)
            .build())) {
      log.info(
          "result of direct apply {} not sent (not connected); the hub will ask again",
          result.getApplyId());
    }
  }

  /** How many direct applies reached the cluster (repeats and refusals excluded). */
  public int directAppliesExecuted() {
    return directDeployer.applies();
  }

  private static Set<Capability> capabilitySet(List<String> names) {
    EnumSet<Capability> set = EnumSet.noneOf(Capability.class);
    names.forEach(n -> Capability.fromSeedName(n).ifPresent(set::add));
    return set;
  }

  /** How many commands reached the cluster (repeats and refusals excluded). */
  public int commandsExecuted() {
    return commands.executions();
  }

  /** How many objects the agent's inventory holds (0 without the observe capability). */
  public int inventorySize() {
    return inventory == null ? 0 : inventory.size();
  }

  private void release() {
    logStreams.close();
    inspections.shutdownNow();
    driftChecks.shutdownNow();
    credentials.close();
    adapterWiring.close();
    if (inventoryFlusher != null) {
      inventoryFlusher.shutdownNow();
      inventoryWatch.close();
    }
    commands.close();
    directDeployer.close();
    rotations.shutdown();
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

  /** Creates the Kubernetes client on first use, and closes it only if the agent created it. */
  private static final class LazyClient implements Supplier<KubernetesClient> {

    private final Supplier<KubernetesClient> factory;
    private final boolean owned;
    private KubernetesClient client;

    LazyClient(Supplier<KubernetesClient> factory, boolean owned) {
      this.factory = factory;
      this.owned = owned;
    }

    @Override
    public synchronized KubernetesClient get() {
      if (client == null) {
        client = factory.get();
      }
      return client;
    }

    synchronized void close() {
      if (owned && client != null) {
        client.close();
        client = null;
      }
    }
  }
}
