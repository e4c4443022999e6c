package dev.gitopshq.hub.peer;

import com.google.protobuf.ByteString;
import dev.gitopshq.agent.v1.AgentHubGrpc;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.Heartbeat;
import dev.gitopshq.agent.v1.Hello;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.LogChunk;
import dev.gitopshq.agent.v1.LogStreamControl;
import dev.gitopshq.agent.v1.OpenLogStream;
import dev.gitopshq.agent.v1.RegisterRequest;
import dev.gitopshq.agent.v1.ResourceDetail;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The agent side of one Connect stream, driven by the test: it answers live reads at once with a
 * ConfigMap, opens every log with five lines, and records inventory refreshes and log controls.
 */
final class FakeAgent implements StreamObserver<HubMessage>, AutoCloseable {
  static final List<String> CAPABILITIES = List.of("observe", "diagnostics.read");

  final BlockingQueue<String> refreshes = new LinkedBlockingQueue<>();
  final BlockingQueue<OpenLogStream> logsOpened = new LinkedBlockingQueue<>();
  final BlockingQueue<LogStreamControl> logControls = new LinkedBlockingQueue<>();
  final CountDownLatch welcomed = new CountDownLatch(1);
  private final ManagedChannel channel;
  private final ScheduledExecutorService beats = Executors.newSingleThreadScheduledExecutor();
  private StreamObserver<AgentMessage> out;
  private String token;
  private long seq;

  private FakeAgent(ManagedChannel channel) {
    this.channel = channel;
  }

  /** Registers the cluster on {@code grpcAddress} and connects there. */
  static FakeAgent connect(String grpcAddress, String clusterName, String registrationToken)
      throws InterruptedException {
    ManagedChannel ch = NettyChannelBuilder.forTarget(grpcAddress).usePlaintext().build();
    String token =
        AgentHubGrpc.newBlockingStub(ch)
            .withInterceptors(bearer(registrationToken))
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .register(
                RegisterRequest.newBuilder()
                    .setClusterName(clusterName)
                    .setAgentVersion("0.1.0")
                    .addAllCapabilities(CAPABILITIES)
                    .build())
            .getAgentToken();
    return stream(ch, token);
  }

  /** Connects again, as the same agent, on {@code grpcAddress}: a new stream with its token. */
  FakeAgent reconnect(String grpcAddress) throws InterruptedException {
    return stream(NettyChannelBuilder.forTarget(grpcAddress).usePlaintext().build(), token);
  }

  private static FakeAgent stream(ManagedChannel ch, String token) throws InterruptedException {
    FakeAgent a = new FakeAgent(ch);
    a.token = token;
    a.out = AgentHubGrpc.newStub(ch).withInterceptors(bearer(token)).connect(a);
    a.send(
        AgentMessage.newBuilder()
            .setHello(
                Hello.newBuilder()
                    .setAgentVersion("0.1.0")
                    .addAllCapabilities(CAPABILITIES)
                    .setHeartbeatIntervalSeconds(1))
            .build());
    if (!a.welcomed.await(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the hub did not welcome the fake agent");
    }
    a.beats.scheduleWithFixedDelay(a::beat, 1, 1, TimeUnit.SECONDS);
    return a;
  }

  private static ClientInterceptor bearer(String token) {
    Metadata md = new Metadata();
    md.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
    return MetadataUtils.newAttachHeadersInterceptor(md);
  }

  private void beat() {
    send(AgentMessage.newBuilder().setHeartbeat(Heartbeat.newBuilder().setSequence(++seq)).build());
  }

  synchronized void send(AgentMessage m) {
    out.onNext(m);
  }

  /** Sends log lines in an open session. */
  void log(String sessionId, String text) {
    send(
        AgentMessage.newBuilder()
            .setLogChunk(
                LogChunk.newBuilder()
                    .setSessionId(sessionId)
                    .setData(ByteString.copyFrom(text, StandardCharsets.UTF_8)))
            .build());
  }

  @Override
  public void onNext(HubMessage m) {
    switch (m.getPayloadCase()) {
      case WELCOME -> welcomed.countDown();
      case READ_RESOURCE ->
          send(
              AgentMessage.newBuilder()
                  .setResourceDetail(
                      ResourceDetail.newBuilder()
                          .setRequestId(m.getReadResource().getRequestId())
                          .setOutcome(ResourceDetail.Outcome.FOUND)
                          .setYaml(
                              "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "
                                  + m.getReadResource().getName()
                                  + "\n  namespace: "
                                  + m.getReadResource().getNamespace()
                                  + "\ndata:\n  answeredBy: fake-agent\n"))
                  .build());
      case LIST_APPLICATIONS ->
          // No Argo CD Application and no Flux Kustomization: an answer, with nothing that tracks
          // a binding.
          send(
              AgentMessage.newBuilder()
                  .setArgoApplications(
                      ArgoApplications.newBuilder()
                          .setRequestId(m.getListApplications().getRequestId()))
                  .build());
      case REFRESH_INVENTORY -> refreshes.add(m.getRefreshInventory().getRequestId());
      case OPEN_LOG_STREAM -> {
        OpenLogStream open = m.getOpenLogStream();
        logsOpened.add(open);
        send(
            AgentMessage.newBuilder()
                .setLogChunk(
                    LogChunk.newBuilder().setSessionId(open.getSessionId()).setOpened(true))
                .build());
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 5; i++) {
          lines.append("line ").append(i).append('\n');
        }
        log(open.getSessionId(), lines.toString());
      }
      case LOG_STREAM_CONTROL -> logControls.add(m.getLogStreamControl());
      default -> {}
    }
  }

  @Override
  public void onError(Throwable t) {}

  @Override
  public void onCompleted() {}

  /** Ends the stream, as an agent that goes away. */
  @Override
  public void close() {
    beats.shutdownNow();
    synchronized (this) {
      try {
        out.onCompleted();
      } catch (RuntimeException e) {
        // already ended
      }
    }
    channel.shutdownNow();
  }
}
