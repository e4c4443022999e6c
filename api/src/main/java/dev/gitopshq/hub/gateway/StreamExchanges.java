package dev.gitopshq.hub.gateway;

import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.ListApplications;
import dev.gitopshq.agent.v1.LogStreamControl;
import dev.gitopshq.agent.v1.LogStreamEnded;
import dev.gitopshq.agent.v1.OpenLogStream;
import dev.gitopshq.agent.v1.ReadResource;
import dev.gitopshq.agent.v1.ResourceDetail;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The request/response correlation on this replica's agent streams, by request id: questions that
 * wait for one answer (live reads of an object or of Argo CD Applications), and log sessions that
 * receive chunks until they end. Unlike jobs, nothing here survives the stream or the replica: the
 * caller waits on this replica, bounded.
 *
 * <ul>
 *   <li>A question counts an answer only from the cluster that was asked, times out and is
 *       forgotten; at most {@link #MAX_QUESTIONS} wait at once.
 *   <li>A log session counts messages only from the stream it was opened on, and ends with that
 *       stream; at most {@link #MAX_LOG_SESSIONS} are open at once.
 * </ul>
 */
final class StreamExchanges {
  static final int MAX_QUESTIONS = 1_000;

  /** At most this many log sessions on one replica, whatever the per-cluster limits say. */
  static final int MAX_LOG_SESSIONS = 2_000;

  private sealed interface Exchange permits Question, LogSession {}

  private record Question(UUID clusterId, CompletableFuture<AgentMessage> answer)
      implements Exchange {}

  private record LogSession(AgentSession stream, LogReceiver receiver) implements Exchange {}

  private final Map<String, Exchange> byId = new ConcurrentHashMap<>();
  private final AtomicInteger questions = new AtomicInteger();
  private final AtomicInteger logSessions = new AtomicInteger();

  // ---- questions --------------------------------------------------------------------------

  /**
   * Registers a question; the future completes with the agent's answer or fails with a {@link
   * java.util.concurrent.TimeoutException} after {@code timeout}.
   *
   * @throws IllegalStateException when too many questions already wait
   */
  CompletableFuture<AgentMessage> expect(UUID clusterId, String requestId, Duration timeout) {
    if (questions.get() >= MAX_QUESTIONS) {
      throw new IllegalStateException("too many live reads are waiting for agents; try again");
    }
    CompletableFuture<AgentMessage> answer = new CompletableFuture<>();
    Question q = new Question(clusterId, answer);
    if (byId.putIfAbsent(requestId, q) != null) {
      throw new IllegalStateException("request " + requestId + " already waits");
    }
    questions.incrementAndGet();
    answer
        .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete((r, e) -> remove(requestId, q));
    return answer;
  }

  /** An agent answered; false when no question of that cluster waits for this id. */
  boolean complete(UUID clusterId, String requestId, AgentMessage answer) {
    if (!(byId.get(requestId) instanceof Question q) || !q.clusterId().equals(clusterId)) {
      return false;
    }
    remove(requestId, q);
    return q.answer().complete(answer);
  }

  /** The question could not be sent. */
  void abandon(String requestId) {
    if (byId.get(requestId) instanceof Question q && remove(requestId, q)) {
      q.answer().cancel(false);
    }
  }

  // ---- log sessions -----------------------------------------------------------------------

  /** False when the replica already carries {@link #MAX_LOG_SESSIONS} or the id is taken. */
  boolean openLog(String sessionId, AgentSession stream, LogReceiver receiver) {
    synchronized (logSessions) {
      if (logSessions.get() >= MAX_LOG_SESSIONS
          || byId.putIfAbsent(sessionId, new LogSession(stream, receiver)) != null) {
        return false;
      }
      logSessions.incrementAndGet();
      return true;
    }
  }

  /** The session's receiver, if the session was opened on this stream. */
  LogReceiver log(AgentSession stream, String sessionId) {
    return byId.get(sessionId) instanceof LogSession s && s.stream() == stream
        ? s.receiver()
        : null;
  }

  /** Forgets the session; its receiver if it was open on this stream. */
  LogReceiver endLog(AgentSession stream, String sessionId) {
    if (byId.get(sessionId) instanceof LogSession s
        && s.stream() == stream
        && remove(sessionId, s)) {
      return s.receiver();
    }
    return null;
  }

  /** The session could not be opened on the agent. */
  void forgetLog(String sessionId) {
    if (byId.get(sessionId) instanceof LogSession s) {
      remove(sessionId, s);
    }
  }

  /** Ends every log session of a stream that ended, telling each receiver why. */
  void streamEnded(AgentSession stream, String why) {
    List<Map.Entry<String, Exchange>> ended =
        byId.entrySet().stream()
            .filter(e -> e.getValue() instanceof LogSession s && s.stream() == stream)
            .toList();
    for (Map.Entry<String, Exchange> e : ended) {
      if (remove(e.getKey(), e.getValue())) {
        ((LogSession) e.getValue())
            .receiver()
            .ended(
                LogStreamEnded.newBuilder()
                    .setSessionId(e.getKey())
                    .setReason(LogStreamEnded.Reason.CLOSED)
                    .setMessage(why)
                    .build());
      }
    }
  }

  // ---- the exchanges on a stream ------------------------------------------------------------

  /**
   * Asks the stream's agent for one object. The hub checks the agent's own namespace limit too,
   * before anything reaches the cluster.
   *
   * @return empty when the stream could not take the request
   */
  Optional<CompletableFuture<ResourceDetail>> readResource(
      AgentSession session, ReadResource request, Duration timeout) {
    List<String> allowed = session.diagnosticsNamespaces();
    if (!request.getNamespace().isEmpty()
        && !allowed.isEmpty()
        && !allowed.contains(request.getNamespace())) {
      return Optional.of(
          CompletableFuture.completedFuture(
              ResourceDetail.newBuilder()
                  .setRequestId(request.getRequestId())
                  .setOutcome(ResourceDetail.Outcome.FORBIDDEN)
                  .setError(
                      "namespace "
                          + request.getNamespace()
                          + " is outside the agent's diagnostics.allowedNamespaces")
                  .build()));
    }
    return ask(
            session,
            request.getRequestId(),
            HubMessage.newBuilder().setReadResource(request),
            timeout)
        .map(f -> f.thenApply(AgentMessage::getResourceDetail));
  }

  /** Asks the stream's agent for its Argo CD Applications. */
  Optional<CompletableFuture<ArgoApplications>> listApplications(
      AgentSession session, Duration timeout) {
    String requestId = UUID.randomUUID().toString();
    return ask(
            session,
            requestId,
            HubMessage.newBuilder()
                .setListApplications(ListApplications.newBuilder().setRequestId(requestId)),
            timeout)
        .map(f -> f.thenApply(AgentMessage::getArgoApplications));
  }

  /**
   * Opens a log session on the stream. The hub checks what the agent checks too: the stream must
   * have announced diagnostics.read, and the namespace must be within the diagnostics namespaces it
   * announced in Hello.
   *
   * @return empty when the stream could not take the request
   * @throws AgentGateway.LogRefused when the namespace or capability is refused, or the replica is
   *     full
   */
  Optional<AgentGateway.LogHandle> openLogStream(
      AgentSession session, OpenLogStream request, LogReceiver to) {
    if (!session.capabilities().contains(Capabilities.DIAGNOSTICS_READ)) {
      throw new AgentGateway.LogRefused(
          "the agent of this cluster did not announce the diagnostics.read capability", false);
    }
    List<String> allowed = session.diagnosticsNamespaces();
    if (!allowed.isEmpty() && !allowed.contains(request.getNamespace())) {
      throw new AgentGateway.LogRefused(
          "namespace "
              + request.getNamespace()
              + " is outside the agent's diagnostics.allowedNamespaces ("
              + String.join(", ", allowed)
              + ")",
          false);
    }
    String id = request.getSessionId();
    if (!openLog(id, session, to)) {
      throw new AgentGateway.LogRefused(
          "this hub replica already carries " + MAX_LOG_SESSIONS + " log sessions", true);
    }
    try {
      session.send(HubMessage.newBuilder().setCorrelationId(id).setOpenLogStream(request).build());
    } catch (RuntimeException e) {
      forgetLog(id);
      return Optional.empty();
    }
    return Optional.of(
        new AgentGateway.LogHandle() {
          @Override
          public void grant(long bytes) {
            session.send(
                HubMessage.newBuilder()
                    .setCorrelationId(id)
                    .setLogStreamControl(
                        LogStreamControl.newBuilder().setSessionId(id).setGrantBytes(bytes))
                    .build());
          }

          @Override
          public void close(String reason) {
            if (endLog(session, id) != null) {
              session.send(
                  HubMessage.newBuilder()
                      .setCorrelationId(id)
                      .setLogStreamControl(
                          LogStreamControl.newBuilder()
                              .setSessionId(id)
                              .setClose(true)
                              .setReason(reason))
                      .build());
            }
          }
        });
  }

  /** Sends a question down the stream and waits for the answer with the same id. */
  private Optional<CompletableFuture<AgentMessage>> ask(
      AgentSession session, String requestId, HubMessage.Builder message, Duration timeout) {
    CompletableFuture<AgentMessage> answer = expect(session.clusterId, requestId, timeout);
    try {
      session.send(message.setCorrelationId(requestId).build());
    } catch (RuntimeException e) {
      abandon(requestId);
      return Optional.empty();
    }
    return Optional.of(answer);
  }

  int questions() {
    return questions.get();
  }

  int logSessions() {
    return logSessions.get();
  }

  private boolean remove(String id, Exchange e) {
    if (!byId.remove(id, e)) {
      return false;
    }
    (e instanceof Question ? questions : logSessions).decrementAndGet();
    return true;
  }
}
