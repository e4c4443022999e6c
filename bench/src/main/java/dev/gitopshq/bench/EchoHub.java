package dev.gitopshq.bench;

import dev.gitopshq.agent.v1.AgentHubGrpc;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.AgentSettings;
import dev.gitopshq.agent.v1.HeartbeatAck;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.RegisterRequest;
import dev.gitopshq.agent.v1.RegisterResponse;
import dev.gitopshq.agent.v1.Welcome;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.File;
import java.net.InetSocketAddress;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The fleet benchmark's baseline: the smallest grpc-java server that speaks {@code
 * agent.v1.AgentHub} on the same TLS certificate and with the same Netty settings as the hub's
 * gateway, and does nothing else. {@code Register} answers a made-up identity, {@code Connect}
 * answers Hello with Welcome and every Heartbeat with its HeartbeatAck. What the hub costs on top
 * of this (authentication, sessions, the heartbeat buffer, metrics) is what the benchmark shows.
 *
 * <p>{@code java -cp gitopshq-bench.jar dev.gitopshq.bench.EchoHub --port N --cert F --key F};
 * prints {@code echo ready <port>} and serves until killed. Loopback only.
 */
public final class EchoHub extends AgentHubGrpc.AgentHubImplBase {
  private static final AgentSettings SETTINGS =
      AgentSettings.newBuilder()
          .setHeartbeatIntervalSeconds(30)
          .setDisconnectTimeoutSeconds(90)
          .build();

  public static void main(String[] argv) throws Exception {
    Args args = new Args(argv);
    int port = args.intValue("port", 0, 0);
    File cert = new File(args.required("cert"));
    File key = new File(args.required("key"));
    args.rejectUnknown();
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
            .addService(new EchoHub())
            .permitKeepAliveTime(10, TimeUnit.SECONDS)
            .permitKeepAliveWithoutCalls(true)
            .keepAliveTime(60, TimeUnit.SECONDS)
            .maxInboundMessageSize(16 * 1024 * 1024)
            .sslContext(GrpcSslContexts.forServer(cert, key).build())
            .build()
            .start();
    System.out.println("echo ready " + server.getPort());
    System.out.flush();
    server.awaitTermination();
  }

  @Override
  public void register(RegisterRequest req, StreamObserver<RegisterResponse> out) {
    out.onNext(
        RegisterResponse.newBuilder()
            .setClusterId(UUID.randomUUID().toString())
            .setAgentToken("ghqa_" + "0".repeat(64))
            .setSettings(SETTINGS)
            .build());
    out.onCompleted();
  }

  @Override
  public StreamObserver<AgentMessage> connect(StreamObserver<HubMessage> out) {
    String clusterId = UUID.randomUUID().toString();
    return new StreamObserver<>() {
      @Override
      public void onNext(AgentMessage m) {
        if (m.hasHello()) {
          out.onNext(
              HubMessage.newBuilder()
                  .setWelcome(Welcome.newBuilder().setClusterId(clusterId).setSettings(SETTINGS))
                  .build());
        } else if (m.hasHeartbeat()) {
          out.onNext(
              HubMessage.newBuilder()
                  .setHeartbeatAck(
                      HeartbeatAck.newBuilder().setSequence(m.getHeartbeat().getSequence()))
                  .build());
        }
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        out.onCompleted();
      }
    };
  }
}
