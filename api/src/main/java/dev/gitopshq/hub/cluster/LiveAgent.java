package dev.gitopshq.hub.cluster;

import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.cluster.ClusterStatus;
import dev.gitopshq.hub.gateway.LiveRequests;
import dev.gitopshq.hub.gateway.StreamForwarder;
import dev.gitopshq.hub.web.ApiError;
import dev.gitopshq.hub.web.ApiException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import org.springframework.stereotype.Service;

/**
 * What the REST API needs to ask a cluster's agent something live (inspection, Argo CD
 * applications): the cluster, the capability its agent must have, whether it is connected, and the
 * answer within a deadline, with the same refusals everywhere.
 */
@Service
public class LiveAgent {
  /** How long a live read waits for the agent. */
  public static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final ClusterService clusters;
  private final Clock clock;
  private final LiveRequests liveRequests;

  public LiveAgent(ClusterService clusters, Clock clock, LiveRequests liveRequests) {
    this.clusters = clusters;
    this.clock = clock;
    this.liveRequests = liveRequests;
  }

  /**
   * Whether the hub may ask the cluster's agent now: it is connected, or it lost its stream lately
   * and the request waits for it to come back ({@code GITOPSHQ_LIVE_RECONNECT_WAIT}).
   */
  public boolean reachable(Cluster c) {
    return c.connected() || liveRequests.reconnecting(c.row().orgId(), c.row().id());
  }

  /**
   * The longest the answer of a live request may take: the reconnect wait ({@code
   * GITOPSHQ_LIVE_RECONNECT_WAIT}) when the agent is coming back, then {@code timeout} for the
   * agent to answer.
   */
  public Duration deadline(Duration timeout) {
    return liveRequests.reconnectWait().plus(timeout);
  }

  /** A cluster with its derived status. */
  public record Cluster(ClusterRow row, ClusterStatus status) {
    /** Whether its agent holds a stream now (Connected or Lagging). */
    public boolean connected() {
      return status == ClusterStatus.Connected || status == ClusterStatus.Lagging;
    }
  }

  /** The cluster (404 for another organization's), with whether its agent is connected now. */
  public Cluster cluster(UUID orgId, UUID clusterId) {
    ClusterRow row = clusters.get(orgId, clusterId);
    return new Cluster(row, ClusterStatus.of(row, clock.instant(), clusters.disconnectTimeout()));
  }

  /** 403 naming the capability when the cluster's agent did not report it. */
  public static void requireCapability(ClusterRow cluster, String capability) {
    if (!cluster.capabilities().contains(capability)) {
      throw ApiException.forbidden(
          "the agent of cluster " + cluster.name() + " lacks the " + capability + " capability");
    }
  }

  /**
   * Asks the agent and waits for its answer, through whichever hub replica holds its stream (when
   * the agent lost its stream lately, after it came back): 409 when no replica does ({@code why}
   * says what needs it), 503 when too many live reads wait, 504 when it does not answer within
   * {@link #TIMEOUT}.
   *
   * @param call sends the request through the gateway with the deadline; empty when no replica
   *     holds a stream for the cluster
   */
  public <T> T ask(Cluster c, String why, Function<Duration, Optional<CompletableFuture<T>>> call) {
    ClusterAcceptance.requireAccepted(c.row(), "the hub asks its agent anything");
    CompletableFuture<T> answer;
    try {
      answer =
          (reachable(c) ? call.apply(TIMEOUT) : Optional.<CompletableFuture<T>>empty())
              .orElseThrow(
                  () ->
                      ApiException.conflict(
                          "the agent of cluster "
                              + c.row().name()
                              + " is not connected to any hub replica; "
                              + why));
    } catch (IllegalStateException busy) {
      throw new ApiException(new ApiError(503, "unavailable", busy.getMessage(), null));
    }
    try {
      return answer.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(new ApiError(503, "unavailable", "interrupted", null));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof StreamForwarder.NotHeld gone) {
        throw ApiException.conflict(
            "the agent of cluster "
                + c.row().name()
                + " is not connected ("
                + gone.getMessage()
                + "); "
                + why);
      }
      throw timeout(c);
    } catch (CancellationException e) {
      throw timeout(c);
    }
  }

  private static ApiException timeout(Cluster c) {
    return new ApiException(
        new ApiError(
            504,
            "agent_timeout",
            "the agent of cluster "
                + c.row().name()
                + " did not answer within "
                + TIMEOUT.toSeconds()
                + " s",
            null));
  }
}
