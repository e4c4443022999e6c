package dev.gitopshq.hub.peer;

import com.google.protobuf.ByteString;
import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.LogChunk;
import dev.gitopshq.agent.v1.LogStreamEnded;
import dev.gitopshq.agent.v1.ResourceDetail;
import dev.gitopshq.hub.gateway.AgentGateway;
import dev.gitopshq.hub.gateway.LiveRequests;
import dev.gitopshq.hub.gateway.LogReceiver;
import dev.gitopshq.hub.v1.HubPeerGrpc;
import dev.gitopshq.hub.v1.PeerLogControl;
import dev.gitopshq.hub.v1.PeerLogEvent;
import dev.gitopshq.hub.v1.PeerLogRefused;
import dev.gitopshq.hub.v1.PeerReadResource;
import dev.gitopshq.hub.v1.PeerRefreshInventory;
import dev.gitopshq.hub.v1.PeerSent;
import dev.gitopshq.hub.v1.PeerTarget;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The holder's side of {@code hub.v1.HubPeer}: it answers only from agent streams this replica
 * holds ({@code LiveRequests.*Here}), so a forwarded call is never forwarded again; a cluster whose
 * stream it does not hold is answered FAILED_PRECONDITION.
 */
final class HubPeerService extends HubPeerGrpc.HubPeerImplBase {
  /** The deadline of a forwarded read whose call carries none. */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  private final LiveRequests live;
  private final String replicaId;

  HubPeerService(LiveRequests live, String replicaId) {
    this.live = live;
    this.replicaId = replicaId;
  }

  @Override
  public void readResource(PeerReadResource req, StreamObserver<ResourceDetail> out) {
    UUID[] t = target(req.getTarget(), out);
    if (t != null) {
      answer(() -> live.readResourceHere(t[0], t[1], req.getRequest(), remaining()), out);
    }
  }

  @Override
  public void listApplications(PeerTarget req, StreamObserver<ArgoApplications> out) {
    UUID[] t = target(req, out);
    if (t != null) {
      answer(() -> live.listApplicationsHere(t[0], t[1], remaining()), out);
    }
  }

  @Override
  public void refreshInventory(PeerRefreshInventory req, StreamObserver<PeerSent> out) {
    UUID[] t = target(req.getTarget(), out);
    if (t == null) {
      return;
    }
    if (req.getRequestId().isEmpty()) {
      out.onError(Status.INVALID_ARGUMENT.withDescription("request_id is empty").asException());
    } else if (live.requestInventoryHere(t[0], t[1], req.getRequestId())) {
      out.onNext(PeerSent.getDefaultInstance());
      out.onCompleted();
    } else {
      out.onError(notHeld());
    }
  }

  @Override
  public StreamObserver<PeerLogControl> streamLogs(StreamObserver<PeerLogEvent> responses) {
    return new LogRelay((ServerCallStreamObserver<PeerLogEvent>) responses);
  }

  /** One forwarded log session: the agent's messages out, the asking replica's credit in. */
  private final class LogRelay implements StreamObserver<PeerLogControl>, LogReceiver {
    private final ServerCallStreamObserver<PeerLogEvent> out;
    private volatile AgentGateway.LogHandle handle;
    private boolean finished;

    LogRelay(ServerCallStreamObserver<PeerLogEvent> out) {
      this.out = out;
      out.setOnCancelHandler(() -> closeHandle("the hub replica that asked went away"));
    }

    @Override
    public void onNext(PeerLogControl c) {
      switch (c.getKindCase()) {
        case OPEN -> open(c);
        case GRANT_BYTES -> {
          AgentGateway.LogHandle h = handle;
          if (h != null && c.getGrantBytes() > 0) {
            h.grant(c.getGrantBytes());
          }
        }
        case CLOSE_REASON -> {
          closeHandle(c.getCloseReason());
          finish(null);
        }
        default -> {}
      }
    }

    private void open(PeerLogControl c) {
      if (handle != null) {
        return;
      }
      UUID[] t = target(c.getOpen().getTarget(), null);
      if (t == null) {
        finish(Status.INVALID_ARGUMENT.withDescription("target is not an organization's cluster"));
        return;
      }
      Optional<AgentGateway.LogHandle> h;
      try {
        h = live.openLogStreamHere(t[0], t[1], c.getOpen().getRequest(), this);
      } catch (AgentGateway.LogRefused refused) {
        send(
            PeerLogEvent.newBuilder()
                .setRefused(
                    PeerLogRefused.newBuilder()
                        .setMessage(refused.getMessage())
                        .setBusy(refused.busy))
                .build());
        finish(null);
        return;
      }
      if (h.isEmpty()) {
        finish(notHeld().getStatus());
        return;
      }
      handle = h.get();
      send(PeerLogEvent.newBuilder().setAccepted(true).build());
    }

    @Override
    public void chunk(boolean opened, ByteString data) {
      send(
          PeerLogEvent.newBuilder()
              .setChunk(LogChunk.newBuilder().setOpened(opened).setData(data))
              .build());
    }

    @Override
    public void ended(LogStreamEnded end) {
      send(PeerLogEvent.newBuilder().setEnded(end).build());
      handle = null;
      finish(null);
    }

    @Override
    public void onError(Throwable t) {
      closeHandle("the hub replica that asked went away");
    }

    @Override
    public void onCompleted() {
      closeHandle("closed by the hub replica that asked");
      finish(null);
    }

    private void closeHandle(String reason) {
      AgentGateway.LogHandle h = handle;
      handle = null;
      if (h != null) {
        h.close(reason);
      }
    }

    private synchronized void send(PeerLogEvent e) {
      if (!finished && !out.isCancelled()) {
        out.onNext(e);
      }
    }

    private synchronized void finish(Status error) {
      if (finished) {
        return;
      }
      finished = true;
      if (out.isCancelled()) {
        return;
      }
      if (error == null) {
        out.onCompleted();
      } else {
        out.onError(error.asException());
      }
    }
  }

  private <T> void answer(Supplier<Optional<CompletableFuture<T>>> ask, StreamObserver<T> out) {
    Optional<CompletableFuture<T>> asked;
    try {
      asked = ask.get();
    } catch (IllegalStateException busy) {
      out.onError(Status.RESOURCE_EXHAUSTED.withDescription(busy.getMessage()).asException());
      return;
    }
    if (asked.isEmpty()) {
      out.onError(notHeld());
      return;
    }
    asked
        .get()
        .whenComplete(
            (answer, e) -> {
              if (e == null) {
                out.onNext(answer);
                out.onCompleted();
              } else if (unwrap(e) instanceof TimeoutException) {
                out.onError(
                    Status.DEADLINE_EXCEEDED
                        .withDescription("the agent did not answer in time")
                        .asException());
              } else {
                out.onError(
                    Status.UNAVAILABLE
                        .withDescription("the agent's stream ended before it answered")
                        .asException());
              }
            });
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
  }

  private StatusException notHeld() {
    return Status.FAILED_PRECONDITION
        .withDescription("hub replica " + replicaId + " holds no stream of this agent")
        .asException();
  }

  /** The time the caller still waits, at most {@link #DEFAULT_TIMEOUT}. */
  private static Duration remaining() {
    Deadline d = Context.current().getDeadline();
    if (d == null) {
      return DEFAULT_TIMEOUT;
    }
    long ms = Math.max(1, d.timeRemaining(TimeUnit.MILLISECONDS));
    return Duration.ofMillis(Math.min(ms, DEFAULT_TIMEOUT.toMillis()));
  }

  /** The (organization, cluster) of a call; null (and INVALID_ARGUMENT to {@code out}) if bad. */
  private static UUID[] target(PeerTarget t, StreamObserver<?> out) {
    try {
      return new UUID[] {UUID.fromString(t.getOrgId()), UUID.fromString(t.getClusterId())};
    } catch (IllegalArgumentException e) {
      if (out != null) {
        out.onError(
            Status.INVALID_ARGUMENT
                .withDescription("target is not an organization's cluster")
                .asException());
      }
      return null;
    }
  }
}
