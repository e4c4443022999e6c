package dev.gitopshq.hub.gateway;

import dev.gitopshq.agent.v1.HubMessage;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * One agent's open {@code Connect} stream on this replica. Sends are serialized here because a gRPC
 * stream observer is not thread-safe, and the stream is ended at most once.
 */
final class AgentSession {
  final UUID orgId;
  final UUID clusterId;
  final UUID tokenId;

  /** This stream's row in agent_sessions. */
  final UUID sessionId = UUID.randomUUID();

  private final ServerCallStreamObserver<HubMessage> out;
  private volatile Instant connectedAt;
  private volatile Set<String> capabilities = Set.of();
  private volatile List<String> diagnosticsNamespaces = List.of();
  private volatile Instant lastSeen;
  private volatile boolean closed;
  private volatile boolean pendingAcceptance;
  private volatile String endReason = "the agent disconnected";

  /**
   * The client certificate (agent_certificates.id) the stream was opened with over mutual TLS; null
   * without one. Its revocation or expiry ends the stream.
   */
  volatile UUID certificateId;

  AgentSession(
      UUID orgId,
      UUID clusterId,
      UUID tokenId,
      ServerCallStreamObserver<HubMessage> out,
      Instant now) {
    this.orgId = orgId;
    this.clusterId = clusterId;
    this.tokenId = tokenId;
    this.out = out;
    this.lastSeen = now;
  }

  /** Set when the Hello was accepted and the cluster row now names this replica. */
  Instant connectedAt() {
    return connectedAt;
  }

  /** The capabilities the agent announced in Hello. */
  Set<String> capabilities() {
    return capabilities;
  }

  /** The namespaces the agent limits diagnostics to (empty: all), as it announced in Hello. */
  List<String> diagnosticsNamespaces() {
    return diagnosticsNamespaces;
  }

  /**
   * Hub acceptance: false while the cluster waits for an admin's decision. Such a stream is
   * welcomed and kept (the cluster shows as connected), but {@link AgentConnections} hides it from
   * every path that sends work, and the service ignores what it sends beyond heartbeats. Fixed for
   * the stream's life: an acceptance ends the stream, and the agent's reconnect is an ordinary one.
   */
  boolean accepted() {
    return !pendingAcceptance;
  }

  void connected(
      Instant at,
      List<String> announced,
      List<String> diagnosticsNamespaces,
      boolean pendingAcceptance) {
    this.pendingAcceptance = pendingAcceptance;
    this.capabilities = Set.copyOf(announced);
    this.diagnosticsNamespaces = List.copyOf(diagnosticsNamespaces);
    this.connectedAt = at;
    this.lastSeen = at;
  }

  Instant lastSeen() {
    return lastSeen;
  }

  void seen(Instant at) {
    this.lastSeen = at;
  }

  boolean isClosed() {
    return closed;
  }

  synchronized void send(HubMessage message) {
    if (!closed && !out.isCancelled()) {
      out.onNext(message);
    }
  }

  /** Why the stream ended, for the log sessions it carried. */
  String endReason() {
    return endReason;
  }

  /** Ends the stream with {@code status} (OK completes it normally). Safe to call twice. */
  synchronized boolean close(Status status) {
    if (closed) {
      return false;
    }
    closed = true;
    if (!status.isOk() && status.getDescription() != null) {
      endReason = "the agent's stream ended: " + status.getDescription();
    }
    if (!out.isCancelled()) {
      try {
        if (status.isOk()) {
          out.onCompleted();
        } else {
          out.onError(status.asRuntimeException());
        }
      } catch (IllegalStateException alreadyClosed) {
        // The transport closed the call first; nothing is left to tell the agent.
      }
    }
    return true;
  }

  /** Marks the session over because the agent or transport ended it. */
  synchronized boolean ended() {
    if (closed) {
      return false;
    }
    closed = true;
    return true;
  }
}
