package dev.gitopshq.hub.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.cluster.ClusterTokenMapper;
import dev.gitopshq.activities.inventory.InventoryStore;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.AgentStatus;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.Heartbeat;
import dev.gitopshq.agent.v1.HeartbeatAck;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.LogStreamControl;
import dev.gitopshq.agent.v1.TokenRotated;
import dev.gitopshq.workflows.rotation.RotationRequest;
import dev.gitopshq.workflows.rotation.TokenAck;
import dev.gitopshq.workflows.rotation.TokenRotationWorkflow;
import io.grpc.Status;
import io.temporal.client.WorkflowClient;
import java.time.Instant;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a welcomed agent stream's messages do, one handler per payload, other than answers to jobs
 * (the {@link JobDispatcher}'s) and Hello ({@code AgentHubService}'s): heartbeats, token rotation
 * answers, the inventory, answers to live reads and log sessions ({@link StreamExchanges}), and the
 * messages of features that listen on the stream ({@link AgentStreamListener}). A handler that
 * throws a gRPC status ends the stream with it.
 */
final class StreamHandlers {
  private static final Logger log = LoggerFactory.getLogger(StreamHandlers.class);

  private final ClusterTokenMapper tokens;
  private final HeartbeatBuffer heartbeats;
  private final WorkflowClient temporal;
  private final InventoryStore inventory;
  private final StreamExchanges exchanges;
  private final GatewayMetrics metrics;
  private final List<AgentStreamListener> listeners;
  private final Map<AgentMessage.PayloadCase, BiConsumer<AgentSession, AgentMessage>> handlers =
      new EnumMap<>(AgentMessage.PayloadCase.class);

  StreamHandlers(
      ClusterTokenMapper tokens,
      HeartbeatBuffer heartbeats,
      WorkflowClient temporal,
      InventoryStore inventory,
      StreamExchanges exchanges,
      GatewayMetrics metrics,
      List<AgentStreamListener> listeners) {
    this.tokens = tokens;
    this.heartbeats = heartbeats;
    this.temporal = temporal;
    this.inventory = inventory;
    this.exchanges = exchanges;
    this.metrics = metrics;
    this.listeners = listeners;
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
    handlers.put(AgentMessage.PayloadCase.LOG_CHUNK, this::logChunk);
    handlers.put(AgentMessage.PayloadCase.LOG_STREAM_ENDED, this::logEnded);
    handlers.put(AgentMessage.PayloadCase.CREDENTIAL_SYNC_RESULT, this::toListeners);
    handlers.put(AgentMessage.PayloadCase.CREDENTIALS_PRUNED, this::toListeners);
  }

  /** The handler of a payload, or null when this hub has none (a newer agent's message). */
  BiConsumer<AgentSession, AgentMessage> get(AgentMessage.PayloadCase payload) {
    return handlers.get(payload);
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
}
