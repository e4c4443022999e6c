package dev.gitopshq.activities.gateway;

import dev.gitopshq.agent.v1.AdaptersWired;
import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.ReadResource;
import dev.gitopshq.agent.v1.ReconcileRequested;
import dev.gitopshq.agent.v1.RequestReconcile;
import dev.gitopshq.agent.v1.ResourceDetail;
import dev.gitopshq.agent.v1.WireAdapters;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/** What activities need from the agent gateway. */
public interface AgentGatewayPort {
  /**
   * A job was parked for the cluster's agent ({@link AgentJobMapper#park}). If this replica holds
   * the agent's stream it sends it now; otherwise the replica that holds it is told by the commit's
   * notification, or finds it on its next sweep.
   */
  void commandQueued(UUID orgId, UUID clusterId);

  /**
   * Sends a new agent token down the cluster's stream, if this replica holds it.
   *
   * @param token the plaintext; it goes on the wire and nowhere else
   * @return false when this replica holds no stream for the cluster
   */
  boolean sendTokenRotation(UUID orgId, UUID clusterId, String rotationId, String token);

  /**
   * Asks the cluster's agent for a fresh inventory snapshot, if this replica holds its stream.
   *
   * @return false when this replica holds no stream for the cluster
   */
  boolean requestInventory(UUID orgId, UUID clusterId, String requestId);

  /**
   * Asks the cluster's agent for one object, live, if this replica holds its stream. The future
   * completes with the agent's answer, or fails with a TimeoutException after {@code timeout}.
   *
   * @return empty when this replica holds no stream for the cluster
   * @throws IllegalStateException when too many live reads already wait
   */
  Optional<CompletableFuture<ResourceDetail>> readResource(
      UUID orgId, UUID clusterId, ReadResource request, Duration timeout);

  /**
   * Asks the cluster's agent for its Argo CD Applications, if this replica holds its stream.
   *
   * @return empty when this replica holds no stream for the cluster
   * @throws IllegalStateException when too many live reads already wait
   */
  Optional<CompletableFuture<ArgoApplications>> listApplications(
      UUID orgId, UUID clusterId, Duration timeout);

  /**
   * Sends the cluster's whole set of runtime adapter bindings to its agent, from whichever replica
   * calls: it is parked as a job, the replica holding the agent's stream sends it, and the future
   * completes with the agent's answer, or fails with a TimeoutException after {@code timeout}.
   *
   * @return empty when no replica holds a stream of the cluster
   */
  Optional<CompletableFuture<AdaptersWired>> wireAdapters(
      UUID orgId, UUID clusterId, WireAdapters request, Duration timeout);

  /**
   * Asks the cluster's adapters that deliver a branch to reconcile now, from whichever replica
   * calls (parked as a job, like {@link #wireAdapters}).
   *
   * @return empty when no replica holds a stream of the cluster
   */
  Optional<CompletableFuture<ReconcileRequested>> requestReconcile(
      UUID orgId, UUID clusterId, RequestReconcile request, Duration timeout);
}
