package dev.gitopshq.hub.gateway;

import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.OpenLogStream;
import dev.gitopshq.agent.v1.ReadResource;
import dev.gitopshq.agent.v1.RefreshInventory;
import dev.gitopshq.agent.v1.ResourceDetail;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Requests that need the agent live (a read of one object, Argo CD's applications, an inventory
 * refresh, a log session): served through the agent's stream when this replica holds it, else
 * handed to the {@link StreamForwarder} that reaches the replica holding it. Each has a {@code
 * *Here} twin that never forwards, for the calls other replicas forward here ({@code hub.peer}): a
 * forwarded call is never forwarded again.
 */
public final class LiveRequests {
  private final AgentConnections connections;
  private final StreamExchanges exchanges;
  private volatile StreamForwarder forwarder = StreamForwarder.NONE;

  LiveRequests(AgentConnections connections, StreamExchanges exchanges) {
    this.connections = connections;
    this.exchanges = exchanges;
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
   * @return empty when no replica holds a stream of the cluster
   */
  public Optional<CompletableFuture<ResourceDetail>> readResource(
      UUID orgId, UUID clusterId, ReadResource request, Duration timeout) {
    return held(orgId, clusterId)
        ? readResourceHere(orgId, clusterId, request, timeout)
        : forwarder.readResource(orgId, clusterId, request, timeout);
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
    return held(orgId, clusterId)
        ? listApplicationsHere(orgId, clusterId, timeout)
        : forwarder.listApplications(orgId, clusterId, timeout);
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
   * @return empty when no replica holds a stream for the cluster
   * @throws AgentGateway.LogRefused when the namespace or capability is refused, or the replica is
   *     full
   */
  public Optional<AgentGateway.LogHandle> openLogStream(
      UUID orgId, UUID clusterId, OpenLogStream request, LogReceiver to) {
    return held(orgId, clusterId)
        ? openLogStreamHere(orgId, clusterId, request, to)
        : forwarder.openLogStream(orgId, clusterId, request, to);
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
    return held(orgId, clusterId)
        ? requestInventoryHere(orgId, clusterId, requestId)
        : forwarder.requestInventory(orgId, clusterId, requestId);
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

  private boolean held(UUID orgId, UUID clusterId) {
    return connections.welcomed(orgId, clusterId).isPresent();
  }
}
