package dev.gitopshq.hub.gateway;

import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.OpenLogStream;
import dev.gitopshq.agent.v1.ReadResource;
import dev.gitopshq.agent.v1.ResourceDetail;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Reaches an agent whose stream another hub replica holds: what {@link LiveRequests} does with a
 * request for the live agent when this replica does not hold its stream. Every method answers empty
 * (or false) when no other replica holds it either; the agent is then not connected.
 */
public interface StreamForwarder {
  /** Reads one object through the replica holding the stream. */
  Optional<CompletableFuture<ResourceDetail>> readResource(
      UUID orgId, UUID clusterId, ReadResource request, Duration timeout);

  /** Lists Argo CD Applications through the replica holding the stream. */
  Optional<CompletableFuture<ArgoApplications>> listApplications(
      UUID orgId, UUID clusterId, Duration timeout);

  /** Asks for a fresh inventory through the replica holding the stream; true once sent. */
  boolean requestInventory(UUID orgId, UUID clusterId, String requestId);

  /**
   * Opens a log session through the replica holding the stream; {@code to} gets its messages.
   *
   * @throws AgentGateway.LogRefused when that replica refused it
   */
  Optional<AgentGateway.LogHandle> openLogStream(
      UUID orgId, UUID clusterId, OpenLogStream request, LogReceiver to);

  /**
   * A forwarded request's future fails with this when the replica named as the stream's holder does
   * not hold it (any more) or cannot be reached: the agent is not connected for this request.
   */
  final class NotHeld extends RuntimeException {
    public NotHeld(String message) {
      super(message, null, false, false);
    }
  }

  /** Forwards nothing: one replica, or no peer key. */
  StreamForwarder NONE =
      new StreamForwarder() {
        @Override
        public Optional<CompletableFuture<ResourceDetail>> readResource(
            UUID orgId, UUID clusterId, ReadResource request, Duration timeout) {
          return Optional.empty();
        }

        @Override
        public Optional<CompletableFuture<ArgoApplications>> listApplications(
            UUID orgId, UUID clusterId, Duration timeout) {
          return Optional.empty();
        }

        @Override
        public boolean requestInventory(UUID orgId, UUID clusterId, String requestId) {
          return false;
        }

        @Override
        public Optional<AgentGateway.LogHandle> openLogStream(
            UUID orgId, UUID clusterId, OpenLogStream request, LogReceiver to) {
          return Optional.empty();
        }
      };
}
