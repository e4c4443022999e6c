package dev.gitopshq.hub.gateway;

import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.OpenLogStream;
import dev.gitopshq.agent.v1.ReadResource;
import dev.gitopshq.agent.v1.RefreshInventory;
import dev.gitopshq.agent.v1.ResourceDetail;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Requests that need the agent live (a read of one object, Argo CD's applications, an inventory
 * refresh, a log session): served through the agent's stream when this replica holds it, else
 * handed to the {@link StreamForwarder} that reaches the replica holding it. Each has a {@code
 * *Here} twin that never forwards, for the calls other replicas forward here ({@code hub.peer}): a
 * forwarded call is never forwarded again.
 *
 * <p>When no replica serves the cluster's stream but it was lost only lately (PostgreSQL still
 * names a holder that does not answer, or its last session closed within the wait), the agent is on
 * its way back to some replica: the request waits for it, looking again every {@link
 * ReconnectWait#EVERY}, at most {@code GITOPSHQ_LIVE_RECONNECT_WAIT}, and is then served through
 * whichever replica holds it. A cluster gone for longer, or never connected, answers at once. Reads
 * wait on a virtual thread of their own (the caller's thread only blocks where it waits for the
 * answer anyway); log sessions and inventory refreshes wait on the caller's thread, which is a
 * request thread.
 */
public final class LiveRequests {
  /** Where waiting reads sleep: one virtual thread each, no pool another task shares. */
  private static final Executor WAITERS =
      task -> Thread.ofVirtual().name("live-reconnect-wait").start(task);

  private final AgentConnections connections;
  private final StreamExchanges exchanges;
  private final ReconnectWait waits;
  private final LostStreams lost;
  private volatile StreamForwarder forwarder = StreamForwarder.NONE;

  /** Whether a cluster's stream was lost lately, so that its agent is expected back soon. */
  interface LostStreams {
    /**
     * @param forwarding whether a holder on another replica could be reached (peer forwarding on)
     * @param within how long ago at most the stream was lost
     */
    boolean lostLately(UUID orgId, UUID clusterId, boolean forwarding, Duration within);
  }

  LiveRequests(
      AgentConnections connections,
      StreamExchanges exchanges,
      ReconnectWait waits,
      LostStreams lost) {
    this.connections = connections;
    this.exchanges = exchanges;
    this.waits = waits;
    this.lost = lost;
  }

  /**
   * Whether no replica may serve the cluster now but its agent is expected back within the wait:
   * its stream was lost lately. False when waiting is off.
   */
  public boolean reconnecting(UUID orgId, UUID clusterId) {
    return waits.enabled()
        && lost.lostLately(orgId, clusterId, forwarder != StreamForwarder.NONE, waits.max());
  }

  /** The longest a request waits for an agent that lost its stream lately; zero: none waits. */
  public Duration reconnectWait() {
    return waits.max();
  }

  /**
   * Sets how requests for agents whose streams other replicas hold reach them (live reads,
   * inventory refreshes, log sessions); without it they answer as if the agent were not connected.
   */
  public void forwardThrough(StreamForwarder forwarder) {
    this.forwarder = forwarder;
  }

  /**
   * Reads one object through the cluster's stream, here or through the replica that holds it.
   *
   * @return empty when no replica holds a stream of the cluster and it was not lost lately (a
   *     stream lost lately is waited for; the answer then fails with {@link
   *     StreamForwarder.NotHeld} if the agent is not back within the wait)
   */
  public Optional<CompletableFuture<ResourceDetail>> readResource(
      UUID orgId, UUID clusterId, ReadResource request, Duration timeout) {
    return answered(
        orgId,
        clusterId,
        () ->
            held(orgId, clusterId)
                ? readResourceHere(orgId, clusterId, request, timeout)
                : forwarder.readResource(orgId, clusterId, request, timeout));
  }

  /** As {@link #readResource}, only through a stream this replica holds (peer calls). */
  public Optional<CompletableFuture<ResourceDetail>> readResourceHere(
      UUID orgId, UUID clusterId, ReadResource request, Duration timeout) {
    return connections
        .welcomed(orgId, clusterId)
        .flatMap(s -> exchanges.readResource(s, request, timeout));
  }

  /** Lists Argo CD Applications, here or through the replica that holds the stream. */
  public Optional<CompletableFuture<ArgoApplications>> listApplications(
      UUID orgId, UUID clusterId, Duration timeout) {
    return answered(
        orgId,
        clusterId,
        () ->
            held(orgId, clusterId)
                ? listApplicationsHere(orgId, clusterId, timeout)
                : forwarder.listApplications(orgId, clusterId, timeout));
  }

  /** As {@link #listApplications}, only through a stream this replica holds (peer calls). */
  public Optional<CompletableFuture<ArgoApplications>> listApplicationsHere(
      UUID orgId, UUID clusterId, Duration timeout) {
    return connections
        .welcomed(orgId, clusterId)
        .flatMap(s -> exchanges.listApplications(s, timeout));
  }

  /**
   * Opens a log session on the cluster's stream, here or through the replica that holds it. The hub
   * checks what the agent checks too: the stream must have announced diagnostics.read, and the
   * namespace must be within the diagnostics namespaces it announced in Hello.
   *
   * @return empty when no replica holds a stream for the cluster, at once or (when it was lost
   *     lately) after the wait
   * @throws AgentGateway.LogRefused when the namespace or capability is refused, or the replica is
   *     full
   */
  public Optional<AgentGateway.LogHandle> openLogStream(
      UUID orgId, UUID clusterId, OpenLogStream request, LogReceiver to) {
    return waited(
        orgId,
        clusterId,
        () ->
            held(orgId, clusterId)
                ? openLogStreamHere(orgId, clusterId, request, to)
                : forwarder.openLogStream(orgId, clusterId, request, to));
  }

  /** As {@link #openLogStream}, only on a stream this replica holds (peer calls). */
  public Optional<AgentGateway.LogHandle> openLogStreamHere(
      UUID orgId, UUID clusterId, OpenLogStream request, LogReceiver to) {
    return connections
        .welcomed(orgId, clusterId)
        .flatMap(s -> exchanges.openLogStream(s, request, to));
  }

  /** Asks for a fresh inventory, here or through the replica that holds the stream. */
  public boolean requestInventory(UUID orgId, UUID clusterId, String requestId) {
    return waited(
            orgId,
            clusterId,
            () ->
                (held(orgId, clusterId)
                        ? requestInventoryHere(orgId, clusterId, requestId)
                        : forwarder.requestInventory(orgId, clusterId, requestId))
                    ? Optional.of(Boolean.TRUE)
                    : Optional.<Boolean>empty())
        .isPresent();
  }

  /** As {@link #requestInventory}, only through a stream this replica holds (peer calls). */
  public boolean requestInventoryHere(UUID orgId, UUID clusterId, String requestId) {
    return connections
        .welcomed(orgId, clusterId)
        .map(
            s -> {
              s.send(
                  HubMessage.newBuilder()
                      .setCorrelationId(requestId)
                      .setRefreshInventory(RefreshInventory.newBuilder().setRequestId(requestId))
                      .build());
              return true;
            })
        .orElse(false);
  }

  /**
   * Tries {@code attempt}; when no replica serves the stream but it was lost lately, or the holder
   * it went to answers that it no longer holds it ({@link StreamForwarder.NotHeld}), tries again on
   * a virtual thread until the wait's deadline. The answer then fails with NotHeld.
   */
  private <T> Optional<CompletableFuture<T>> answered(
      UUID orgId, UUID clusterId, Supplier<Optional<CompletableFuture<T>>> attempt) {
    Instant until = waits.deadline();
    Optional<CompletableFuture<T>> first = attempt.get();
    if (first.isPresent()) {
      return waits.enabled() ? Optional.of(again(first.get(), attempt, until)) : first;
    }
    if (!reconnecting(orgId, clusterId)) {
      return Optional.empty();
    }
    return Optional.of(later(attempt, until, notBack()));
  }

  /** {@code f}, or when it fails with NotHeld while the wait lasts, the answer of a later try. */
  private <T> CompletableFuture<T> again(
      CompletableFuture<T> f, Supplier<Optional<CompletableFuture<T>>> attempt, Instant until) {
    return f.exceptionallyCompose(
        e -> {
          Throwable cause =
              e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
          if (!(cause instanceof StreamForwarder.NotHeld gone) || !waits.before(until)) {
            return CompletableFuture.failedFuture(cause);
          }
          return later(attempt, until, gone);
        });
  }

  private <T> CompletableFuture<T> later(
      Supplier<Optional<CompletableFuture<T>>> attempt,
      Instant until,
      StreamForwarder.NotHeld otherwise) {
    return CompletableFuture.supplyAsync(() -> waits.until(until, attempt), WAITERS)
        .thenCompose(
            next ->
                next.map(f -> again(f, attempt, until))
                    .orElseGet(() -> CompletableFuture.failedFuture(otherwise)));
  }

  /**
   * Tries {@code attempt}, and when it got nothing but the stream was lost lately, again on this
   * thread until the wait's deadline.
   */
  private <T> Optional<T> waited(UUID orgId, UUID clusterId, Supplier<Optional<T>> attempt) {
    Instant until = waits.deadline();
    Optional<T> first = attempt.get();
    if (first.isPresent() || !reconnecting(orgId, clusterId)) {
      return first;
    }
    return waits.until(until, attempt);
  }

  private StreamForwarder.NotHeld notBack() {
    return new StreamForwarder.NotHeld(
        "it lost its stream and did not come back within " + waits.max().toSeconds() + " s");
  }

  private boolean held(UUID orgId, UUID clusterId) {
    return connections.welcomed(orgId, clusterId).isPresent();
  }
}
