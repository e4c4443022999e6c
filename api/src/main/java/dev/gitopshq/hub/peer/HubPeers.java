package dev.gitopshq.hub.peer;

import dev.gitopshq.activities.gateway.HubPeerMapper;
import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.LogStreamEnded;
import dev.gitopshq.agent.v1.OpenLogStream;
import dev.gitopshq.agent.v1.ReadResource;
import dev.gitopshq.agent.v1.ResourceDetail;
import dev.gitopshq.hub.config.GrpcTls;
import dev.gitopshq.hub.config.ReplicaIdentity;
import dev.gitopshq.hub.gateway.AgentGateway;
import dev.gitopshq.hub.gateway.LiveRequests;
import dev.gitopshq.hub.gateway.LogReceiver;
import dev.gitopshq.hub.gateway.StreamForwarder;
import dev.gitopshq.hub.v1.HubPeerGrpc;
import dev.gitopshq.hub.v1.PeerLogControl;
import dev.gitopshq.hub.v1.PeerLogEvent;
import dev.gitopshq.hub.v1.PeerOpenLog;
import dev.gitopshq.hub.v1.PeerReadResource;
import dev.gitopshq.hub.v1.PeerRefreshInventory;
import dev.gitopshq.hub.v1.PeerTarget;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.stub.StreamObserver;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * This replica's part in forwarding between hub replicas. With a peer key ({@link PeerProperties})
 * it serves {@code hub.v1.HubPeer} on its own port, advertises the address in {@code hub_replicas}
 * every {@value #ADVERTISE_SECONDS} s, and forwards what the {@link AgentGateway} cannot serve from
 * its own streams to the replica PostgreSQL names as the holder of the agent's stream. Without a
 * key it does none of it: requests for agents connected elsewhere answer 409, as before. With a
 * certificate, key and CA the peer port is mutual TLS both ways (the key is still checked); without
 * them it is plaintext, and the replica says so at startup.
 */
@Component
public class HubPeers implements SmartLifecycle, StreamForwarder {
  static final int ADVERTISE_SECONDS = 30;

  /** A replica whose row is older than this is taken for dead. */
  static final Duration STALE = Duration.ofSeconds(3L * ADVERTISE_SECONDS);

  /** How long opening a forwarded log session waits for the holder's word. */
  static final Duration LOG_OPEN_TIMEOUT = Duration.ofSeconds(10);

  static final Duration REFRESH_TIMEOUT = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(HubPeers.class);

  private final PeerProperties props;
  private final String replicaId;
  private final HubPeerMapper replicas;
  private final LiveRequests live;
  private final Clock clock;
  private final PeerKey key;

  /** The client side of the peer port's mutual TLS; null when the peer port is plaintext. */
  private final SslContext clientTls;

  private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();
  private Server server;
  private ScheduledExecutorService timer;
  private String advertised;

  public HubPeers(
      PeerProperties props,
      ReplicaIdentity replica,
      HubPeerMapper replicas,
      LiveRequests live,
      Clock clock) {
    this.props = props;
    this.replicaId = replica.id();
    this.replicas = replicas;
    this.live = live;
    this.clock = clock;
    this.key = props.enabled() ? new PeerKey(props.key()) : null;
    this.clientTls =
        key != null && props.tls()
            ? GrpcTls.client(
                props.tlsCertFile(), props.tlsKeyFile(), props.tlsCaFile(), "peer port")
            : null;
    if (key != null) {
      live.forwardThrough(this);
    }
  }

  @Override
  public synchronized void start() {
    if (key == null) {
      log.info(
          "GITOPSHQ_PEER_KEY is not set: replica {} serves no peer calls and forwards nothing;"
              + " with more than one replica, requests for agents connected to another answer 409",
          replicaId);
      server = null;
      return;
    }
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(props.port()))
            .addService(ServerInterceptors.intercept(new HubPeerService(live, replicaId), key))
            .maxInboundMessageSize(16 * 1024 * 1024);
    if (clientTls != null) {
      // Mutual TLS: only a replica whose certificate the peer CA signed gets to present the key.
      builder.sslContext(
          GrpcTls.server(
              props.tlsCertFile(),
              props.tlsKeyFile(),
              "peer port",
              b -> b.trustManager(new File(props.tlsCaFile())).clientAuth(ClientAuth.REQUIRE)));
    } else {
      log.warn(
          "the peer port of replica {} is plaintext: the peer key and forwarded reads and logs"
              + " cross the network unencrypted; keep it inside the cluster network, or set"
              + " GITOPSHQ_PEER_TLS_CERT, GITOPSHQ_PEER_TLS_KEY and GITOPSHQ_PEER_TLS_CA",
          replicaId);
    }
    try {
      server = builder.build().start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on peer gRPC port " + props.port(), e);
    }
    advertised = host() + ":" + server.getPort();
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "hub-peers");
              t.setDaemon(true);
              return t;
            });
    advertise();
    timer.scheduleWithFixedDelay(
        this::advertise, ADVERTISE_SECONDS, ADVERTISE_SECONDS, TimeUnit.SECONDS);
    log.info(
        "peer forwarding on: replica {} serves hub.v1.HubPeer at {} ({})",
        replicaId,
        advertised,
        clientTls != null ? "mutual TLS" : "plaintext");
  }

  private String host() {
    if (props.address() != null) {
      return props.address();
    }
    try {
      return InetAddress.getLocalHost().getHostAddress();
    } catch (IOException e) {
      return "127.0.0.1";
    }
  }

  private void advertise() {
    try {
      replicas.advertise(replicaId, advertised, clock.instant());
    } catch (RuntimeException e) {
      log.warn("could not advertise the peer address of replica {}: {}", replicaId, e.toString());
    }
  }

  @Override
  public synchronized void stop() {
    if (server == null) {
      return;
    }
    timer.shutdownNow();
    try {
      replicas.withdraw(replicaId);
    } catch (RuntimeException e) {
      log.warn("could not withdraw replica {}: {}", replicaId, e.toString());
    }
    server.shutdown();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.shutdownNow();
    }
    channels.values().forEach(ManagedChannel::shutdownNow);
    channels.clear();
    server = null;
  }

  @Override
  public boolean isRunning() {
    return server != null;
  }

  @Override
  public int getPhase() {
    // Up before the agent gateway takes streams, down after it let them go.
    return Integer.MAX_VALUE - 2048;
  }

  /** The port the peer server bound; -1 when forwarding is off. */
  public int port() {
    return server == null ? -1 : server.getPort();
  }

  /** The address this replica advertises to the others; null when forwarding is off. */
  public String advertisedAddress() {
    return server == null ? null : advertised;
  }

  // ---- forwarding -----------------------------------------------------------------------------

  @Override
  public Optional<CompletableFuture<ResourceDetail>> readResource(
      UUID orgId, UUID clusterId, ReadResource request, Duration timeout) {
    return holder(orgId, clusterId)
        .map(
            ch -> {
              CompletableFuture<ResourceDetail> answer = new CompletableFuture<>();
              stub(ch)
                  .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                  .readResource(
                      PeerReadResource.newBuilder()
                          .setTarget(target(orgId, clusterId))
                          .setRequest(request)
                          .build(),
                      into(answer));
              return answer;
            });
  }

  @Override
  public Optional<CompletableFuture<ArgoApplications>> listApplications(
      UUID orgId, UUID clusterId, Duration timeout) {
    return holder(orgId, clusterId)
        .map(
            ch -> {
              CompletableFuture<ArgoApplications> answer = new CompletableFuture<>();
              stub(ch)
                  .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                  .listApplications(target(orgId, clusterId), into(answer));
              return answer;
            });
  }

  @Override
  public boolean requestInventory(UUID orgId, UUID clusterId, String requestId) {
    Optional<ManagedChannel> ch = holder(orgId, clusterId);
    if (ch.isEmpty()) {
      return false;
    }
    try {
      HubPeerGrpc.newBlockingStub(ch.get())
          .withInterceptors(key.attach())
          .withDeadlineAfter(REFRESH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .refreshInventory(
              PeerRefreshInventory.newBuilder()
                  .setTarget(target(orgId, clusterId))
                  .setRequestId(requestId)
                  .build());
      return true;
    } catch (StatusRuntimeException e) {
      log.info(
          "the replica holding cluster {}'s stream did not take the inventory refresh: {}",
          clusterId,
          e.getStatus().getCode());
      return false;
    }
  }

  @Override
  public Optional<AgentGateway.LogHandle> openLogStream(
      UUID orgId, UUID clusterId, OpenLogStream request, LogReceiver to) {
    Optional<ManagedChannel> ch = holder(orgId, clusterId);
    if (ch.isEmpty()) {
      return Optional.empty();
    }
    ForwardedLog session = new ForwardedLog(request.getSessionId(), to);
    session.out = stub(ch.get()).streamLogs(session);
    session.send(
        PeerLogControl.newBuilder()
            .setOpen(
                PeerOpenLog.newBuilder().setTarget(target(orgId, clusterId)).setRequest(request))
            .build());
    try {
      session.accepted.get(LOG_OPEN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      session.close("interrupted");
      return Optional.empty();
    } catch (TimeoutException e) {
      session.close("the hub replica holding the stream did not answer");
      return Optional.empty();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof AgentGateway.LogRefused refused) {
        throw refused;
      }
      return Optional.empty();
    }
    return Optional.of(session);
  }

  /** The asking replica's side of one forwarded log session. */
  private static final class ForwardedLog
      implements StreamObserver<PeerLogEvent>, AgentGateway.LogHandle {
    final String sessionId;
    final LogReceiver to;
    final CompletableFuture<Void> accepted = new CompletableFuture<>();
    StreamObserver<PeerLogControl> out;
    private boolean done;

    ForwardedLog(String sessionId, LogReceiver to) {
      this.sessionId = sessionId;
      this.to = to;
    }

    @Override
    public void onNext(PeerLogEvent e) {
      switch (e.getKindCase()) {
        case ACCEPTED -> accepted.complete(null);
        case REFUSED -> {
          finished();
          accepted.completeExceptionally(
              new AgentGateway.LogRefused(e.getRefused().getMessage(), e.getRefused().getBusy()));
        }
        case CHUNK -> {
          // The agent may answer before the holder's "accepted" is on its way.
          accepted.complete(null);
          if (!isDone()) {
            to.chunk(e.getChunk().getOpened(), e.getChunk().getData());
          }
        }
        case ENDED -> {
          accepted.complete(null);
          if (finished()) {
            to.ended(e.getEnded().toBuilder().setSessionId(sessionId).build());
          }
        }
        default -> {}
      }
    }

    @Override
    public void onError(Throwable t) {
      Status s = Status.fromThrowable(t);
      if (!accepted.isDone()) {
        finished();
        accepted.completeExceptionally(new NotHeld(s.getDescription()));
      } else {
        endedHere("the hub replica holding the agent's stream went away (" + s.getCode() + ")");
      }
    }

    @Override
    public void onCompleted() {
      endedHere("the hub replica holding the agent's stream ended the session");
    }

    private void endedHere(String why) {
      if (finished()) {
        to.ended(
            LogStreamEnded.newBuilder()
                .setSessionId(sessionId)
                .setReason(LogStreamEnded.Reason.CLOSED)
                .setMessage(why)
                .build());
      }
    }

    private synchronized boolean isDone() {
      return done;
    }

    /** True for the first call: the session ends now. */
    private synchronized boolean finished() {
      boolean first = !done;
      done = true;
      return first;
    }

    @Override
    public void grant(long bytes) {
      if (!isDone()) {
        send(PeerLogControl.newBuilder().setGrantBytes(bytes).build());
      }
    }

    @Override
    public void close(String reason) {
      if (finished()) {
        send(PeerLogControl.newBuilder().setCloseReason(reason).build());
        synchronized (this) {
          try {
            out.onCompleted();
          } catch (RuntimeException e) {
            // The call already ended.
          }
        }
      }
    }

    synchronized void send(PeerLogControl c) {
      try {
        out.onNext(c);
      } catch (RuntimeException e) {
        // The call already ended; onError tells the receiver.
      }
    }
  }

  private HubPeerGrpc.HubPeerStub stub(ManagedChannel ch) {
    return HubPeerGrpc.newStub(ch).withInterceptors(key.attach());
  }

  /** A channel to the other replica that holds the cluster's stream, when one does. */
  private Optional<ManagedChannel> holder(UUID orgId, UUID clusterId) {
    if (server == null) {
      return Optional.empty();
    }
    return replicas
        .holderAddress(orgId, clusterId, replicaId, clock.instant().minus(STALE))
        .map(address -> channels.computeIfAbsent(address, a -> channel(a)));
  }

  private ManagedChannel channel(String address) {
    NettyChannelBuilder b =
        NettyChannelBuilder.forTarget(address)
            .maxInboundMessageSize(16 * 1024 * 1024)
            .keepAliveTime(60, TimeUnit.SECONDS);
    if (clientTls == null) {
      return b.usePlaintext().build();
    }
    b.sslContext(clientTls);
    if (props.tlsServerName() != null) {
      // Replicas dial each other's pod IPs; their certificates name the installation instead.
      b.overrideAuthority(props.tlsServerName());
    }
    return b.build();
  }

  private static PeerTarget target(UUID orgId, UUID clusterId) {
    return PeerTarget.newBuilder()
        .setOrgId(orgId.toString())
        .setClusterId(clusterId.toString())
        .build();
  }

  /** Completes {@code f} with a unary call's answer; NotHeld when the holder could not serve it. */
  private static <T> StreamObserver<T> into(CompletableFuture<T> f) {
    return new StreamObserver<>() {
      @Override
      public void onNext(T value) {
        f.complete(value);
      }

      @Override
      public void onError(Throwable t) {
        Status s = Status.fromThrowable(t);
        f.completeExceptionally(
            switch (s.getCode()) {
              case DEADLINE_EXCEEDED -> new TimeoutException(s.getDescription());
              case UNAVAILABLE, FAILED_PRECONDITION, UNAUTHENTICATED ->
                  new NotHeld(
                      s.getDescription() == null
                          ? "the hub replica holding its stream did not answer"
                          : s.getDescription());
              default -> new IllegalStateException(s.toString());
            });
      }

      @Override
      public void onCompleted() {}
    };
  }
}
