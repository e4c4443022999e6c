package dev.gitopshq.hub.gateway;

import dev.gitopshq.agent.v1.AgentMessage;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Requests to agents that wait for an answer on the same stream, by request id. An answer counts
 * only from the cluster that was asked; unanswered requests time out and are forgotten; at most
 * {@link #MAX_PENDING} wait at once.
 */
final class LiveReads {
  static final int MAX_PENDING = 1_000;

  private record Pending(UUID clusterId, CompletableFuture<AgentMessage> answer) {}

  private final Map<String, Pending> pending = new ConcurrentHashMap<>();

  /**
   * Registers a request; the future completes with the agent's answer or fails with a {@link
   * java.util.concurrent.TimeoutException} after {@code timeout}.
   *
   * @throws IllegalStateException when too many requests already wait
   */
  CompletableFuture<AgentMessage> expect(UUID clusterId, String requestId, Duration timeout) {
    if (pending.size() >= MAX_PENDING) {
      throw new IllegalStateException("too many live reads are waiting for agents; try again");
    }
    CompletableFuture<AgentMessage> answer = new CompletableFuture<>();
    pending.put(requestId, new Pending(clusterId, answer));
    answer
        .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete((r, e) -> pending.remove(requestId));
    return answer;
  }

  /** An agent answered; false when nothing of that cluster waits for this id. */
  boolean complete(UUID clusterId, String requestId, AgentMessage answer) {
    Pending p = pending.get(requestId);
    if (p == null || !p.clusterId().equals(clusterId)) {
      return false;
    }
    pending.remove(requestId);
    return p.answer().complete(answer);
  }

  /** The request could not be sent. */
  void abandon(String requestId) {
    Pending p = pending.remove(requestId);
    if (p != null) {
      p.answer().cancel(false);
    }
  }

  int size() {
    return pending.size();
  }
}
