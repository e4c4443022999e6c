package dev.gitopshq.hub.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterTokenMapper;
import dev.gitopshq.activities.cluster.ClusterTokenRow;
import dev.gitopshq.activities.inventory.InventoryStore;
import dev.gitopshq.activities.registration.AgentRegistration;
import dev.gitopshq.activities.registration.ClusterNameMismatchException;
import dev.gitopshq.activities.registration.RegistrationStore;
import dev.gitopshq.activities.tokens.TokenKind;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.agent.v1.AgentHubGrpc;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.AgentSettings;
import dev.gitopshq.agent.v1.AgentStatus;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.Heartbeat;
import dev.gitopshq.agent.v1.HeartbeatAck;
import dev.gitopshq.agent.v1.Hello;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.LogStreamControl;
import dev.gitopshq.agent.v1.RegisterRequest;
import dev.gitopshq.agent.v1.RegisterResponse;
import dev.gitopshq.agent.v1.TokenRotated;
import dev.gitopshq.agent.v1.Welcome;
import dev.gitopshq.hub.config.HubVersion;
import dev.gitopshq.hub.config.VersionCompatibility;
import dev.gitopshq.hub.temporal.RotationSchedules;
import dev.gitopshq.hub.web.Checks;
import dev.gitopshq.hub.web.DatabaseUnavailable;
import dev.gitopshq.workflows.registration.AgentRegistered;
import dev.gitopshq.workflows.registration.RegistrationWorkflow;
import dev.gitopshq.workflows.rotation.RotationRequest;
import dev.gitopshq.workflows.rotation.TokenAck;
import dev.gitopshq.workflows.rotation.TokenRotationWorkflow;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.temporal.client.WorkflowClient;
import java.time.Clock;
import java.time.Instant;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code agent.v1.AgentHub}. Every token problem (unknown, expired, consumed, superseded, revoked,
 * malformed or missing) gets the same UNAUTHENTICATED answer with the same text.
 */
final class AgentHubService extends AgentHubGrpc.AgentHubImplBase {
  private static final Logger log = LoggerFactory.getLogger(AgentHubService.class);
  static final String BAD_TOKEN = "invalid or expired token";
  private static final int MAX_VERSION_LENGTH = 64;

  private final RegistrationStore registration;
  private final ClusterTokenMapper tokens;
  private final ClusterMapper clusters;
  private final AgentConnections connections;
  private final HeartbeatBuffer heartbeats;
  private final JobDispatcher jobs;
  private final WorkflowClient temporal;
  private final RotationSchedules schedules;
  private final InventoryStore inventory;
  private final StreamExchanges exchanges;
  private final AgentSettings settings;
  private final String hubVersion;
  private final Clock clock;
  private final GatewayMetrics metrics;

  /** What a welcomed stream's message does, by payload; job answers go to {@link #jobs}. */
  private final Map<AgentMessage.PayloadCase, BiConsumer<AgentSession, AgentMessage>> handlers =
      new EnumMap<>(AgentMessage.PayloadCase.class);

  /** Features that use the stream without the gateway knowing them (credential sync). */
  final List<AgentStreamListener> listeners = new CopyOnWriteArrayList<>();

  AgentHubService(
      RegistrationStore registration,
      ClusterTokenMapper tokens,
      ClusterMapper clusters,
      AgentConnections connections,
      HeartbeatBuffer heartbeats,
      JobDispatcher jobs,
      WorkflowClient temporal,
      RotationSchedules schedules,
      InventoryStore inventory,
      StreamExchanges exchanges,
      AgentSettings settings,
      String hubVersion,
      Clock clock,
      GatewayMetrics metrics) {
    this.metrics = metrics;
    this.registration = registration;
    this.tokens = tokens;
    this.clusters = clusters;
    this.connections = connections;
    this.heartbeats = heartbeats;
    this.jobs = jobs;
    this.temporal = temporal;
    this.schedules = schedules;
    this.inventory = inventory;
    this.exchanges = exchanges;
    this.settings = settings;
    this.hubVersion = hubVersion;
    this.clock = clock;
    handlers.put(AgentMessage.PayloadCase.HEARTBEAT, this::heartbeat);
    handlers.put(AgentMessage.PayloadCase.TOKEN_ROTATED, this::tokenRotated);
    handlers.put(AgentMessage.PayloadCase.INVENTORY_SNAPSHOT, observing(this::snapshot));
    handlers.put(
        AgentMessage.PayloadCase.INVENTORY_DELTA,
        observing(
            (s, m) -> bounded(() -> inventory.delta(s.orgId, s.clusterId, m.getInventoryDelta()))));
    handlers.put(
        AgentMessage.PayloadCase.RESOURCE_DETAIL,
        (s, m) -> answered(s, m.getResourceDetail().getRequestId(), m));
    handlers.put(
        AgentMessage.PayloadCase.ARGO_APPLICATIONS,
        (s, m) -> answered(s, m.getArgoApplications().getRequestId(), m));
    handlers.put(
        AgentMessage.PayloadCase.ADAPTERS_WIRED,
        (s, m) -> answered(s, m.getAdaptersWired().getRequestId(), m));
    handlers.put(
        AgentMessage.PayloadCase.RECONCILE_REQUESTED,
        (s, m) -> answered(s, m.getReconcileRequested().getRequestId(), m));
    handlers.put(
        AgentMessage.PayloadCase.DRIFT_REPORT,
        observing((s, m) -> answered(s, m.getDriftReport().getCheckId(), m)));
    handlers.put(AgentMessage.PayloadCase.LOG_CHUNK, this::logChunk);
    handlers.put(AgentMessage.PayloadCase.LOG_STREAM_ENDED, this::logEnded);
    handlers.put(AgentMessage.PayloadCase.CREDENTIAL_SYNC_RESULT, this::toListeners);
    handlers.put(AgentMessage.PayloadCase.CREDENTIALS_PRUNED, this::toListeners);
  }

  @Override
  public void register(RegisterRequest req, StreamObserver<RegisterResponse> out) {
    // Before authentication: the refusal of an incompatible agent does not name the hub's version.
    String invalid =
        validate(req.getClusterName(), req.getAgentVersion(), req.getCapabilitiesList(), false);
    if (invalid != null) {
      out.onError(statusFor(invalid).withDescription(invalid).asRuntimeException());
      return;
    }
    Optional<AgentRegistration> result;
    try {
      result =
          registration.consume(
              BearerCredentials.TOKEN.get(),
              new RegistrationStore.AgentDescription(
                  req.getClusterName(), req.getAgentVersion(), req.getCapabilitiesList()));
    } catch (ClusterNameMismatchException e) {
      out.onError(Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (RuntimeException e) {
      log.error("registration failed", e);
      out.onError(
          Status.UNAVAILABLE.withDescription("registration failed; retry").asRuntimeException());
      return;
    }
    if (result.isEmpty()) {
      out.onError(unauthenticated());
      return;
    }
    AgentRegistration r = result.get();
    log.info(
        "cluster {} ({}) registered, agent {}",
        r.clusterName(),
        r.clusterId(),
        LogSafe.text(req.getAgentVersion()));
    if (!r.revokedAgentTokens().isEmpty()) {
      connections.closeTokens(
          r.revokedAgentTokens(), "agent identity replaced by a new registration");
    }
    signalRegistered(r, req);
    out.onNext(
        RegisterResponse.newBuilder()
            .setClusterId(r.clusterId().toString())
            .setAgentToken(r.agentToken())
            .setSettings(settings)
            .build());
    out.onCompleted();
  }

  @Override
  public StreamObserver<AgentMessage> connect(StreamObserver<HubMessage> responses) {
    ServerCallStreamObserver<HubMessage> out = (ServerCallStreamObserver<HubMessage>) responses;
    String token = BearerCredentials.TOKEN.get();
    Optional<ClusterTokenRow> auth = Optional.empty();
    if (TokenKind.AGENT.matches(token)) {
      try {
        auth = tokens.findActiveAgentToken(Tokens.sha256Hex(token), clock.instant());
      } catch (RuntimeException e) {
        log.error("agent token lookup failed", e);
        out.onError(
            Status.UNAVAILABLE
                .withDescription("hub storage unavailable; retry")
                .asRuntimeException());
        return Drain.INSTANCE;
      }
    }
    if (auth.isEmpty()) {
      out.onError(unauthenticated());
      return Drain.INSTANCE;
    }
    ClusterTokenRow t = auth.get();
    AgentSession session = new AgentSession(t.orgId(), t.clusterId(), t.id(), out, clock.instant());
    out.setOnCancelHandler(() -> ended(session));
    acknowledgeByUse(t);
    return new StreamObserver<>() {
      @Override
      public void onNext(AgentMessage message) {
        try {
          handle(session, message);
        } catch (StatusRuntimeException e) {
          metrics.streamError(e.getStatus().getCode());
          if (session.close(e.getStatus())) {
            connections.remove(session);
          }
        } catch (RuntimeException e) {
          Status status;
          if (DatabaseUnavailable.causedBy(e)) {
            // PostgreSQL restarting: the agent reconnects, and the hub re-sends what is still
            // parked, so a result lost here comes back from the agent's memory.
            log.warn(
                "database unavailable while handling a message from cluster {}", session.clusterId);
            status = Status.UNAVAILABLE.withDescription("hub database unavailable; reconnect");
          } else {
            log.error("error handling message from cluster {}", session.clusterId, e);
            status = Status.INTERNAL.withDescription("hub error; reconnect");
          }
          metrics.streamError(status.getCode());
          if (session.close(status)) {
            connections.remove(session);
          }
        }
      }

      @Override
      public void onError(Throwable t) {
        metrics.streamError("TRANSPORT");
        ended(session);
      }

      @Override
      public void onCompleted() {
        if (session.close(Status.OK)) {
          connections.remove(session);
        }
      }
    };
  }

  private void handle(AgentSession session, AgentMessage message) {
    if (session.isClosed()) {
      return;
    }
    Instant now = clock.instant();
    AgentMessage.PayloadCase payload = message.getPayloadCase();
    if (payload == AgentMessage.PayloadCase.HELLO) {
      hello(session, message.getHello(), now);
      return;
    }
    BiConsumer<AgentSession, AgentMessage> handler = handlers.get(payload);
    if (handler == null && jobs.answeredBy(payload).isPresent()) {
      handler = jobs::onAnswer;
    }
    if (handler == null) {
      // A newer agent may send messages this hub does not know; they are ignored.
      return;
    }
    // Everything but Hello comes after it, and every message proves the agent alive.
    requireHello(session);
    session.seen(now);
    handler.accept(session, message);
  }

  private void heartbeat(AgentSession session, AgentMessage message) {
    metrics.heartbeat();
    Heartbeat beat = message.getHeartbeat();
    Instant now = session.lastSeen();
    if (beat.hasStatus()) {
      AgentStatus st = beat.getStatus();
      heartbeats.record(
          session.orgId,
          session.clusterId,
          now,
          statusJson(st),
          st.getHeartbeatRttMillis() > 0
              ? (int) Math.min(Integer.MAX_VALUE, st.getHeartbeatRttMillis())
              : null);
    } else {
      heartbeats.record(session.orgId, session.clusterId, now);
    }
    // The agent measures the round trip from this answer.
    session.send(
        HubMessage.newBuilder()
            .setHeartbeatAck(HeartbeatAck.newBuilder().setSequence(beat.getSequence()))
            .build());
  }

  private void tokenRotated(AgentSession session, AgentMessage message) {
    TokenRotated r = message.getTokenRotated();
    // Only an answer about a rotation of this stream's own cluster reaches a workflow: a
    // rotation id is not a secret, and another cluster's agent must not activate its token.
    if (!isOwnRotation(session, r.getRotationId())) {
      log.warn(
          "cluster {} answered rotation {}, which is not one of its own; stream ended",
          session.clusterId,
          LogSafe.text(r.getRotationId()));
      throw Status.PERMISSION_DENIED
          .withDescription("rotation " + LogSafe.text(r.getRotationId()) + " is not this cluster's")
          .asRuntimeException();
    }
    log.info(
        "cluster {} answered rotation {}: persisted={}",
        session.clusterId,
        r.getRotationId(),
        r.getPersisted());
    try {
      temporal
          .newWorkflowStub(
              TokenRotationWorkflow.class, RotationRequest.workflowId(r.getRotationId()))
          .acknowledged(new TokenAck(r.getRotationId(), r.getPersisted(), r.getError()));
    } catch (RuntimeException e) {
      // Unknown or finished rotation: its workflow decided without this answer.
      log.warn(
          "rotation {} of cluster {} no longer waits: {}",
          r.getRotationId(),
          session.clusterId,
          e.toString());
    }
  }

  private void snapshot(AgentSession session, AgentMessage message) {
    InventoryStore.Applied applied =
        bounded(
            () ->
                inventory.snapshot(
                    session.orgId, session.clusterId, message.getInventorySnapshot()));
    if (message.getInventorySnapshot().getLast()) {
      log.info(
          "cluster {} inventory snapshot finished ({} objects in this part, {} removed, {} skipped)",
          session.clusterId,
          applied.written(),
          applied.removed(),
          applied.skipped());
    }
  }

  private void logChunk(AgentSession session, AgentMessage message) {
    var chunk = message.getLogChunk();
    LogReceiver to = exchanges.log(session, chunk.getSessionId());
    if (to == null) {
      // A session the hub no longer holds (ended, or opened on an earlier stream): stop it.
      session.send(
          HubMessage.newBuilder()
              .setCorrelationId(chunk.getSessionId())
              .setLogStreamControl(
                  LogStreamControl.newBuilder()
                      .setSessionId(chunk.getSessionId())
                      .setClose(true)
                      .setReason("the hub holds no such log session"))
              .build());
    } else {
      to.chunk(chunk.getOpened(), chunk.getData());
    }
  }

  private void logEnded(AgentSession session, AgentMessage message) {
    var end = message.getLogStreamEnded();
    LogReceiver to = exchanges.endLog(session, end.getSessionId());
    if (to != null) {
      to.ended(end);
    }
  }

  private void toListeners(AgentSession session, AgentMessage message) {
    for (AgentStreamListener l : listeners) {
      if (l.accepts(message.getPayloadCase())) {
        l.message(session.orgId, session.clusterId, message);
      }
    }
  }

  /** A handler of what only an agent that announced {@code observe} may send. */
  private static BiConsumer<AgentSession, AgentMessage> observing(
      BiConsumer<AgentSession, AgentMessage> handler) {
    return (session, message) -> {
      requireObserve(session);
      handler.accept(session, message);
    };
  }

  private void hello(AgentSession session, Hello hello, Instant now) {
    if (session.connectedAt() != null) {
      throw Status.INVALID_ARGUMENT
          .withDescription("hello was already sent on this stream")
          .asRuntimeException();
    }
    String invalid = validate("", hello.getAgentVersion(), hello.getCapabilitiesList(), true);
    if (invalid != null) {
      throw statusFor(invalid).withDescription(invalid).asRuntimeException();
    }
    int interval =
        hello.getHeartbeatIntervalSeconds() > 0
            ? Math.min(hello.getHeartbeatIntervalSeconds(), settings.getDisconnectTimeoutSeconds())
            : settings.getHeartbeatIntervalSeconds();
    int updated =
        clusters.markConnected(
            session.orgId,
            session.clusterId,
            connections.replicaId(),
            hello.getAgentVersion(),
            hello.getCapabilitiesList(),
            interval,
            now);
    if (updated == 0) {
      throw Status.UNAUTHENTICATED.withDescription(BAD_TOKEN).asRuntimeException();
    }
    session.connected(now, hello.getCapabilitiesList(), hello.getDiagnosticsNamespacesList());
    connections.add(session);
    session.send(
        HubMessage.newBuilder()
            .setWelcome(
                Welcome.newBuilder()
                    .setClusterId(session.clusterId.toString())
                    .setSettings(settings.toBuilder().setHeartbeatIntervalSeconds(interval))
                    .setHubVersion(hubVersion))
            .build());
    log.info(
        "cluster {} connected (agent {})",
        session.clusterId,
        LogSafe.text(hello.getAgentVersion()));
    // Whatever waited for this agent goes out now.
    jobs.sendWaiting(session);
    for (AgentStreamListener l : listeners) {
      try {
        l.welcomed(session.orgId, session.clusterId, session.capabilities());
      } catch (RuntimeException e) {
        log.warn("cluster {}: {} failed on hello: {}", session.clusterId, l, e.toString());
      }
    }
    schedules.onHello(
        session.orgId,
        session.clusterId,
        hello.getCapabilitiesList().contains(Capabilities.TOKEN_ROTATE));
  }

  /**
   * A stream opened with a rotation's pending token answers that rotation: the agent saves a
   * rotated token before it uses it, so this is the acknowledgement even when its {@code
   * TokenRotated} was lost (the stream ended before the hub could check it, e.g. while PostgreSQL
   * was restarting, or the replica died). Without it the rotation would time out and revoke the
   * only token the agent has left. The rotation is the token's own, so no other cluster's rotation
   * can be answered.
   */
  private void acknowledgeByUse(ClusterTokenRow t) {
    if (!"pending".equals(t.status())) {
      return;
    }
    try {
      tokens
          .pendingRotation(t.orgId(), t.id())
          .ifPresent(
              rotationId -> {
                log.info(
                    "cluster {} connected with the pending token of rotation {}: acknowledged",
                    t.clusterId(),
                    rotationId);
                temporal
                    .newWorkflowStub(
                        TokenRotationWorkflow.class, RotationRequest.workflowId(rotationId))
                    .acknowledged(new TokenAck(rotationId, true, ""));
              });
    } catch (RuntimeException e) {
      // The rotation finished (or PostgreSQL went away again): its TokenRotated may still come.
      log.warn(
          "cluster {} connected with a pending token whose rotation no longer waits: {}",
          t.clusterId(),
          e.toString());
    }
  }

  private boolean isOwnRotation(AgentSession session, String rotationId) {
    UUID id;
    try {
      id = UUID.fromString(rotationId);
    } catch (IllegalArgumentException e) {
      return false;
    }
    return tokens.isRotationOf(session.orgId, session.clusterId, id);
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The agent's status as the JSON the API shows, bounded: at most 20 unavailable kinds. */
  static String statusJson(AgentStatus st) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("heapUsedBytes", Math.max(0, st.getHeapUsedBytes()));
    m.put("heapMaxBytes", Math.max(0, st.getHeapMaxBytes()));
    m.put("inventoryObjects", Math.max(0, st.getInventoryObjects()));
    m.put("inventorySynced", st.getInventorySynced());
    m.put(
        "unavailableKinds",
        st.getInventoryUnavailableList().stream()
            .limit(20)
            .map(k -> k.length() <= 63 ? k : k.substring(0, 63))
            .toList());
    try {
      return JSON.writeValueAsString(m);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private void answered(AgentSession session, String requestId, AgentMessage message) {
    if (!exchanges.complete(session.clusterId, requestId, message)) {
      log.debug(
          "cluster {} answered live read {}, which no longer waits",
          session.clusterId,
          LogSafe.text(requestId));
    }
  }

  /**
   * The inventory is the observe capability's: an agent that did not announce it may not send one.
   */
  private static void requireObserve(AgentSession session) {
    if (!session.capabilities().contains(Capabilities.OBSERVE)) {
      throw Status.PERMISSION_DENIED
          .withDescription(
              "inventory needs the observe capability, which this agent did not announce")
          .asRuntimeException();
    }
  }

  /**
   * An agent's message that breaks the inventory's bounds ends its stream with INVALID_ARGUMENT.
   */
  private static <T> T bounded(Supplier<T> write) {
    try {
      return write.get();
    } catch (IllegalArgumentException e) {
      throw Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException();
    }
  }

  private static void requireHello(AgentSession session) {
    if (session.connectedAt() == null) {
      throw Status.INVALID_ARGUMENT
          .withDescription("the first message on a stream must be hello")
          .asRuntimeException();
    }
  }

  private void ended(AgentSession session) {
    if (session.ended()) {
      connections.remove(session);
      log.info("cluster {} disconnected", session.clusterId);
    }
  }

  private void signalRegistered(AgentRegistration r, RegisterRequest req) {
    try {
      temporal
          .newWorkflowStub(
              RegistrationWorkflow.class,
              RegistrationWorkflow.workflowId(r.registrationTokenId().toString()))
          .agentRegistered(
              new AgentRegistered(
                  r.agentTokenId().toString(), req.getAgentVersion(), req.getCapabilitiesList()));
    } catch (RuntimeException e) {
      // Registration is already committed; the workflow learns it from the store at expiry.
      log.warn(
          "could not signal registration workflow for cluster {}: {}", r.clusterId(), e.toString());
    }
  }

  /**
   * Null when valid; otherwise "field: reason". Only an {@code authenticated} caller (an agent on
   * its Connect stream) is told the hub's version in the refusal of an incompatible agent.
   */
  static String validate(
      String clusterName, String agentVersion, List<String> capabilities, boolean authenticated) {
    if (!clusterName.isEmpty()) {
      Checks c = new Checks().dnsLabel("cluster_name", clusterName);
      if (!c.ok()) {
        return "cluster_name: must be an RFC 1123 label of at most 63 characters";
      }
    }
    if (agentVersion.isBlank() || agentVersion.length() > MAX_VERSION_LENGTH) {
      return "agent_version: is required (at most " + MAX_VERSION_LENGTH + " characters)";
    }
    var incompatible =
        authenticated
            ? VersionCompatibility.refusal(agentVersion, HubVersion.current())
            : VersionCompatibility.anonymousRefusal(agentVersion, HubVersion.current());
    if (incompatible.isPresent()) {
      return incompatible.get();
    }
    for (String capability : capabilities) {
      if (!Capabilities.isKnown(capability)) {
        return "capabilities: unknown capability '" + capability + "'; known: " + Capabilities.ALL;
      }
    }
    return null;
  }

  /** An incompatible agent is a precondition failure (upgrade it); anything else bad input. */
  private static Status statusFor(String problem) {
    return problem.contains("is not compatible with")
        ? Status.FAILED_PRECONDITION
        : Status.INVALID_ARGUMENT;
  }

  private static StatusRuntimeException unauthenticated() {
    return Status.UNAUTHENTICATED.withDescription(BAD_TOKEN).asRuntimeException();
  }

  /** Swallows messages on a stream that was refused. */
  private enum Drain implements StreamObserver<AgentMessage> {
    INSTANCE;

    @Override
    public void onNext(AgentMessage value) {}

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onCompleted() {}
  }
}
