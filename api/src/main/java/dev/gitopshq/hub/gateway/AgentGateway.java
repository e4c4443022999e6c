package dev.gitopshq.hub.gateway;

import dev.gitopshq.activities.agentcert.AgentCertificates;
import dev.gitopshq.activities.cluster.AgentHealthMapper;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterTokenMapper;
import dev.gitopshq.activities.command.CommandMapper;
import dev.gitopshq.activities.command.CommandRow;
import dev.gitopshq.activities.crypto.SecretBox;
import dev.gitopshq.activities.delivery.ProjectFenceMapper;
import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.activities.gateway.AgentJobMapper;
import dev.gitopshq.activities.inventory.InventoryStore;
import dev.gitopshq.activities.registration.RegistrationStore;
import dev.gitopshq.activities.release.DirectApplies;
import dev.gitopshq.activities.release.DirectApplyMapper;
import dev.gitopshq.agent.v1.AdaptersWired;
import dev.gitopshq.agent.v1.AgentHubGrpc;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.AgentSettings;
import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.CheckDrift;
import dev.gitopshq.agent.v1.DriftReport;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.ReadResource;
import dev.gitopshq.agent.v1.ReconcileRequested;
import dev.gitopshq.agent.v1.RequestReconcile;
import dev.gitopshq.agent.v1.ResourceDetail;
import dev.gitopshq.agent.v1.RotateToken;
import dev.gitopshq.agent.v1.WireAdapters;
import dev.gitopshq.hub.config.GrpcTls;
import dev.gitopshq.hub.config.HubProperties;
import dev.gitopshq.hub.config.HubVersion;
import dev.gitopshq.hub.config.ReplicaIdentity;
import dev.gitopshq.hub.temporal.RotationSchedules;
import dev.gitopshq.workflows.TaskQueues;
import dev.gitopshq.workflows.agentwatch.AgentWatchRequest;
import dev.gitopshq.workflows.agentwatch.AgentWatchWorkflow;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.protobuf.services.HealthStatusManager;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.grpc.MetricCollectingServerInterceptor;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs the agent gRPC server ({@code agent.v1.AgentHub} and {@code grpc.health.v1.Health}; no
 * server reflection) on {@code gitopshq.agent.grpc-port}, with TLS when a certificate is
 * configured. Calls other than the authenticated {@code Connect} stream may send messages of at
 * most 32 KiB ({@link PreAuthMessageLimit}), {@code Connect} 16 MiB. It starts after the rest of
 * the hub is ready and stops first, telling connected agents to reconnect elsewhere.
 */
@Component
public class AgentGateway implements SmartLifecycle, AgentGatewayPort {
  /** Kinds of jobs whose caller waits for the answer ({@link ParkedRequests}). */
  static final String WIRE_ADAPTERS = "wire_adapters";

  static final String REQUEST_RECONCILE = "request_reconcile";
  static final String DRIFT_CHECK = "drift_check";

  private static final Logger log = LoggerFactory.getLogger(AgentGateway.class);

  private final HubProperties props;
  private final AgentConnections connections;
  private final HeartbeatBuffer heartbeats;
  private final AgentHubService service;
  private final JobDispatcher jobs;
  private final CommandJobs commandJobs;
  private final ParkedRequests requests;
  private final HealthStatusManager health = new HealthStatusManager();
  private final StreamExchanges exchanges = new StreamExchanges();
  private ScheduledExecutorService timers;
  private Server server;
  private final MeterRegistry meters;
  private final LiveRequests live;
  private final AgentNotifications notifications;

  public AgentGateway(
      HubProperties props,
      RegistrationStore registration,
      ClusterTokenMapper tokens,
      ClusterMapper clusters,
      CommandMapper commands,
      WorkflowClient temporal,
      ReplicaIdentity replicaIdentity,
      RotationSchedules schedules,
      InventoryStore inventory,
      AgentHealthMapper health,
      Clock clock,
      MeterRegistry meters,
      DirectApplyMapper directApplyMapper,
      DirectApplies directStore,
      ProjectFenceMapper fences,
      AgentJobMapper jobMapper,
      TransactionTemplate tx,
      SecretBox box,
      AgentCertificates certificates) {
    this.props = props;
    String replica = replicaIdentity.id();
    this.connections =
        new AgentConnections(
            clusters,
            health,
            replica,
            clock,
            session -> {
              exchanges.streamEnded(session, session.endReason());
              watch(temporal, clusters, session);
            });
    this.heartbeats = new HeartbeatBuffer(clusters);
    AgentSettings settings =
        AgentSettings.newBuilder()
            .setHeartbeatIntervalSeconds(props.agent().heartbeatIntervalSeconds())
            .setDisconnectTimeoutSeconds(props.agent().disconnectTimeoutSeconds())
            .build();
    this.jobs =
        new JobDispatcher(jobMapper, connections, JobHandOver.temporal(temporal), tx, clock);
    this.commandJobs = new CommandJobs(commands, clock);
    jobs.register(commandJobs);
    jobs.register(new DirectApplyJobs(directApplyMapper, directStore, fences, clock));
    this.requests = new ParkedRequests(jobMapper, clusters, box, jobs, clock);
    jobs.register(
        requests.kind(
            WIRE_ADAPTERS,
            AgentMessage.PayloadCase.ADAPTERS_WIRED,
            m -> m.getAdaptersWired().getRequestId(),
            null));
    jobs.register(
        requests.kind(
            REQUEST_RECONCILE,
            AgentMessage.PayloadCase.RECONCILE_REQUESTED,
            m -> m.getReconcileRequested().getRequestId(),
            null));
    jobs.register(
        requests.kind(
            DRIFT_CHECK,
            AgentMessage.PayloadCase.DRIFT_REPORT,
            m -> m.getDriftReport().getCheckId(),
            Capabilities.OBSERVE));
    this.service =
        new AgentHubService(
            registration,
            tokens,
            clusters,
            connections,
            heartbeats,
            jobs,
            temporal,
            schedules,
            inventory,
            exchanges,
            settings,
            HubVersion.current(),
            clock,
            new GatewayMetrics(meters, connections::size),
            certificates);
    this.meters = meters;
    this.live =
        new LiveRequests(
            connections,
            exchanges,
            new ReconnectWait(props.agent().liveReconnectWait(), clock, Thread::sleep),
            (orgId, clusterId, forwarding, within) ->
                clusters.streamLostSince(
                    orgId, clusterId, replica, forwarding, clock.instant().minus(within)));
    this.notifications =
        new AgentNotifications(
            connections,
            jobs,
            service.listeners,
            tokens,
            clusters,
            certificates,
            clock,
            () -> timers);
  }

  /** Requests that need the agent live, here or through the replica holding its stream. */
  public LiveRequests live() {
    return live;
  }

  /** What this gateway does on {@code gitopshq_agents} notifications (a bean: GatewayConfig). */
  public AgentNotifications notifications() {
    return notifications;
  }

  @Override
  public synchronized void start() {
    HubProperties.Agent a = props.agent();
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(a.grpcPort()))
            .addService(
                ServerInterceptors.intercept(
                    service, new BearerCredentials(), new ClientCertificates()))
            // grpc_server_* per method and status code (Micrometer's gRPC binder).
            .intercept(new MetricCollectingServerInterceptor(meters))
            // Added last, so called first: it must see grpc's own call object.
            .intercept(new PreAuthMessageLimit())
            // No server reflection: callers that are not agents learn nothing of the service.
            .addService(health.getHealthService())
            // Agents keep one idle stream open for days; let them ping it alive.
            .permitKeepAliveTime(10, TimeUnit.SECONDS)
            .permitKeepAliveWithoutCalls(true)
            .keepAliveTime(60, TimeUnit.SECONDS)
            .maxInboundMessageSize(16 * 1024 * 1024);
    if (GrpcTls.configured(a.tlsCertFile())) {
      builder.sslContext(
          GrpcTls.server(
              a.tlsCertFile(),
              a.tlsKeyFile(),
              "agent gateway",
              // Agents' client certificates (mutual TLS) are optional here and checked by the
              // service against their organization's CA.
              b ->
                  b.trustManager(new ClientCertificates.AnyClientCertificate())
                      .clientAuth(ClientAuth.OPTIONAL)));
    }
    try {
      server = builder.build().start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on agent gRPC port " + a.grpcPort(), e);
    }
    health.setStatus("", ServingStatus.SERVING);
    health.setStatus(AgentHubGrpc.SERVICE_NAME, ServingStatus.SERVING);

    timers =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "agent-gateway-timers");
              t.setDaemon(true);
              return t;
            });
    timers.scheduleWithFixedDelay(
        heartbeats::flush,
        a.heartbeatFlushMillis(),
        a.heartbeatFlushMillis(),
        TimeUnit.MILLISECONDS);
    Duration timeout = Duration.ofSeconds(a.disconnectTimeoutSeconds());
    timers.scheduleWithFixedDelay(() -> connections.closeSilent(timeout), 5, 5, TimeUnit.SECONDS);
    timers.scheduleWithFixedDelay(
        this::sweep, a.sweepMillis(), a.sweepMillis(), TimeUnit.MILLISECONDS);
    log.info(
        "agent gateway listening on port {} ({}), replica {}",
        port(),
        GrpcTls.configured(a.tlsCertFile()) ? "TLS" : "plaintext",
        connections.replicaId());
  }

  @Override
  public synchronized void stop() {
    if (server == null) {
      return;
    }
    health.enterTerminalState();
    connections.closeAll("hub replica shutting down; reconnect");
    server.shutdown();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.shutdownNow();
    }
    timers.shutdownNow();
    heartbeats.flush();
    server = null;
  }

  @Override
  public boolean isRunning() {
    return server != null;
  }

  @Override
  public int getPhase() {
    // Start last and stop first: agents only reach a hub that can serve them.
    return Integer.MAX_VALUE - 1024;
  }

  @Override
  public void commandQueued(UUID orgId, UUID clusterId) {
    // Only what no stream carried yet: a job the agent already has is not sent again here.
    jobs.sendQueued(orgId, clusterId);
  }

  /** Starts the workflow that notifies if this agent does not come back within the timeout. */
  private void watch(WorkflowClient temporal, ClusterMapper clusters, AgentSession session) {
    String name =
        clusters
            .findById(session.orgId, session.clusterId)
            .map(c -> c.name())
            .orElse(session.clusterId.toString());
    AgentWatchRequest request =
        new AgentWatchRequest(
            session.orgId.toString(),
            session.clusterId.toString(),
            name,
            session.connectedAt().toEpochMilli(),
            props.agent().disconnectTimeoutSeconds());
    try {
      WorkflowClient.start(
          temporal.newWorkflowStub(
                  AgentWatchWorkflow.class,
                  WorkflowOptions.newBuilder()
                      .setTaskQueue(TaskQueues.HUB)
                      .setWorkflowId(request.workflowId())
                      .build())
              ::watch,
          request);
    } catch (WorkflowExecutionAlreadyStarted already) {
      // Another replica saw the same stream end.
    }
  }

  @Override
  public boolean sendTokenRotation(UUID orgId, UUID clusterId, String rotationId, String token) {
    return held(orgId, clusterId)
        .map(
            s -> {
              s.send(
                  HubMessage.newBuilder()
                      .setCorrelationId(rotationId)
                      .setRotateToken(
                          RotateToken.newBuilder().setRotationId(rotationId).setAgentToken(token))
                      .build());
              return true;
            })
        .orElse(false);
  }

  /** See {@link LiveRequests#readResource}. */
  @Override
  public Optional<CompletableFuture<ResourceDetail>> readResource(
      UUID orgId, UUID clusterId, ReadResource request, Duration timeout) {
    return live.readResource(orgId, clusterId, request, timeout);
  }

  /** See {@link LiveRequests#listApplications}. */
  @Override
  public Optional<CompletableFuture<ArgoApplications>> listApplications(
      UUID orgId, UUID clusterId, Duration timeout) {
    return live.listApplications(orgId, clusterId, timeout);
  }

  /** See {@link LiveRequests#requestInventory}. */
  @Override
  public boolean requestInventory(UUID orgId, UUID clusterId, String requestId) {
    return live.requestInventory(orgId, clusterId, requestId);
  }

  /**
   * Parks the wiring as a job for the cluster's agent: whichever replica holds its stream sends it,
   * and this one reads the answer (the deploy tokens it carries are sealed in the job row).
   *
   * @return empty when no replica holds a stream of the cluster
   */
  @Override
  public Optional<CompletableFuture<AdaptersWired>> wireAdapters(
      UUID orgId, UUID clusterId, WireAdapters request, Duration timeout) {
    return requests
        .ask(
            orgId,
            clusterId,
            WIRE_ADAPTERS,
            request.getRequestId(),
            HubMessage.newBuilder().setWireAdapters(request).build(),
            timeout)
        .map(f -> f.thenApply(AgentMessage::getAdaptersWired));
  }

  /** Parks the reconcile request as a job, like {@link #wireAdapters}. */
  @Override
  public Optional<CompletableFuture<ReconcileRequested>> requestReconcile(
      UUID orgId, UUID clusterId, RequestReconcile request, Duration timeout) {
    return requests
        .ask(
            orgId,
            clusterId,
            REQUEST_RECONCILE,
            request.getRequestId(),
            HubMessage.newBuilder().setRequestReconcile(request).build(),
            timeout)
        .map(f -> f.thenApply(AgentMessage::getReconcileRequested));
  }

  /**
   * Sets how the desired manifest of a resolve-drift command is loaded when the command is sent
   * (from its drift finding, by the ids in its params).
   */
  public void resolveDriftManifests(Function<CommandRow, Optional<String>> loader) {
    commandJobs.manifests(loader);
  }

  /** An agent whose stream this replica holds, with the capabilities it announced. */
  public record HeldAgent(UUID orgId, UUID clusterId, Set<String> capabilities) {}

  /** The agents whose streams this replica holds and has welcomed. */
  public List<HeldAgent> heldAgents() {
    return connections.sessions().stream()
        .filter(s -> s.connectedAt() != null && !s.isClosed())
        .map(s -> new HeldAgent(s.orgId, s.clusterId, s.capabilities()))
        .toList();
  }

  /**
   * Parks a drift check as a job for the cluster's agent, when it is connected to some replica and
   * announced {@code observe}; the future completes with the agent's report.
   */
  public Optional<CompletableFuture<DriftReport>> checkDrift(
      UUID orgId, UUID clusterId, CheckDrift request, Duration timeout) {
    return requests
        .ask(
            orgId,
            clusterId,
            DRIFT_CHECK,
            request.getCheckId(),
            HubMessage.newBuilder().setCheckDrift(request).build(),
            timeout)
        .map(f -> f.thenApply(AgentMessage::getDriftReport));
  }

  /** Why a log session cannot be opened; the message is for the user. */
  public static final class LogRefused extends RuntimeException {
    /** True for a refusal by the hub's limits (429), false for a forbidden namespace (403). */
    public final boolean busy;

    public LogRefused(String message, boolean busy) {
      super(message, null, false, false);
      this.busy = busy;
    }
  }

  /** The hub's side of one open log session: credit for the agent, or its end. */
  public interface LogHandle {
    /** Lets the agent send {@code bytes} more. */
    void grant(long bytes);

    /** Ends the session on the agent; no message about it arrives any more. */
    void close(String reason);
  }

  /** Log sessions carried by this replica now. */
  public int logSessions() {
    return exchanges.logSessions();
  }

  /** The organization's cluster's stream on this replica, once the hub has welcomed it. */
  private Optional<AgentSession> held(UUID orgId, UUID clusterId) {
    return connections.welcomed(orgId, clusterId);
  }

  private void sweep() {
    try {
      notifications.closeRevoked();
      jobs.sweep();
    } catch (RuntimeException e) {
      // The next sweep tries again; jobs stay parked in PostgreSQL meanwhile.
      log.warn("agent job sweep failed: {}", e.toString());
    }
  }

  /**
   * Adds a kind of job for agents (see {@link JobKind}): its jobs parked in {@code agent_jobs} are
   * sent, answered and handed to Temporal by the gateway's one pipeline. Call before the gateway
   * starts (a feature's configuration does, like {@link #addListener}).
   *
   * @throws IllegalStateException when the kind's name or answer payload is taken
   */
  public void addJobKind(JobKind<?> kind) {
    jobs.register(kind);
  }

  /** Registers a feature that works over agents' streams (see {@link AgentStreamListener}). */
  public void addListener(AgentStreamListener listener) {
    service.listeners.add(listener);
  }

  /**
   * The capabilities the organization's cluster's agent announced, when this replica holds its
   * welcomed stream.
   */
  public Optional<Set<String>> heldCapabilities(UUID orgId, UUID clusterId) {
    return held(orgId, clusterId).map(AgentSession::capabilities);
  }

  /** The clusters whose welcomed streams this replica holds, as (org, cluster) pairs. */
  public List<UUID[]> heldClusters() {
    return connections.sessions().stream()
        .filter(s -> s.connectedAt() != null && !s.isClosed())
        .map(s -> new UUID[] {s.orgId, s.clusterId})
        .toList();
  }

  /**
   * Sends a message down the cluster's stream if this replica holds it. The message is never
   * logged: it may carry a credential's values.
   */
  public boolean send(UUID orgId, UUID clusterId, HubMessage message) {
    Optional<AgentSession> s = held(orgId, clusterId);
    s.ifPresent(session -> session.send(message));
    return s.isPresent();
  }

  /** The port actually bound (useful when configured as 0). */
  public int port() {
    return server == null ? -1 : server.getPort();
  }

  /** How many agents hold a stream on this replica. */
  public int connectedAgents() {
    return connections.size();
  }

  /** Writes buffered heartbeats now (tests and shutdown). */
  public int flushHeartbeats() {
    return heartbeats.flush();
  }
}
