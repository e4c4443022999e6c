package dev.gitopshq.agent.link;

import dev.gitopshq.agent.v1.AgentHubGrpc;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.AgentSettings;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.RegisterRequest;
import dev.gitopshq.agent.v1.RegisterResponse;
import dev.gitopshq.agent.v1.Welcome;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A scriptable AgentHub on a loopback port: it records what the agent sends and answers the way the
 * test tells it to. It stands in for the far side of the protocol only.
 */
final class FakeHub implements AutoCloseable {

  static final String CLUSTER_ID = "6f1d2c3b-4a59-4e7f-8a9b-0c1d2e3f4a5b";
  static final String AGENT_TOKEN = "ghqa_" + "5e".repeat(32);

  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Context.Key<String> CALLER_AUTH = Context.key("authorization");

  /** One Register call as the hub saw it. */
  record RegisterCall(String authorization, RegisterRequest request) {}

  /** A message the agent sent, with the hub's receive time. */
  record Received(AgentMessage message, long nanos) {}

  /** One Connect stream as the hub saw it. */
  static final class Stream {
    final String authorization;
    volatile StreamObserver<HubMessage> toAgent;
    final List<Received> received = new CopyOnWriteArrayList<>();
    volatile boolean halfClosedByAgent;
    volatile Status errorFromAgent;

    Stream(String authorization) {
      this.authorization = authorization;
    }

    List<AgentMessage> messages() {
      return received.stream().map(Received::message).toList();
    }

    List<Received> heartbeats() {
      return received.stream().filter(r -> r.message().hasHeartbeat()).toList();
    }
  }

  final List<RegisterCall> registerCalls = new CopyOnWriteArrayList<>();
  final List<Stream> streams = new CopyOnWriteArrayList<>();

  /** Errors to answer the next Register calls with, one per call, before succeeding. */
  final Queue<Status> registerErrors = new ConcurrentLinkedQueue<>();

  /** If set, every Connect is answered with this error. */
  volatile Status connectError;

  /** The settings sent in RegisterResponse and Welcome. */
  volatile AgentSettings settings =
      AgentSettings.newBuilder()
          .setHeartbeatIntervalSeconds(30)
          .setDisconnectTimeoutSeconds(90)
          .build();

  private volatile Server server;
  private volatile int port;
  private volatile ServerCredentials credentials = InsecureServerCredentials.create();

  FakeHub start() {
    return startOn(0);
  }

  /** Starts the hub serving TLS with the given credentials. */
  FakeHub startTls(ServerCredentials tls) {
    credentials = tls;
    return startOn(0);
  }

  /** Starts the server again on the port it had before, as a restarted hub would. */
  FakeHub restart() {
    return startOn(port);
  }

  private FakeHub startOn(int requestedPort) {
    try {
      server =
          NettyServerBuilder.forAddress(
                  new InetSocketAddress("127.0.0.1", requestedPort), credentials)
              // The agent pings every 30 s; a real hub must allow that too.
              .permitKeepAliveTime(10, TimeUnit.SECONDS)
              .permitKeepAliveWithoutCalls(true)
              .addService(ServerInterceptors.intercept(new Service(), new CaptureAuthorization()))
              .build()
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    port = server.getPort();
    return this;
  }

  String address() {
    return "127.0.0.1:" + port;
  }

  /** Stops the server abruptly, as a crashed hub would, cancelling open streams. */
  void stop() {
    server.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    if (server != null) {
      stop();
    }
  }

  private static final class CaptureAuthorization implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      Context context = Context.current().withValue(CALLER_AUTH, headers.get(AUTHORIZATION));
      return Contexts.interceptCall(context, call, headers, next);
    }
  }

  private final class Service extends AgentHubGrpc.AgentHubImplBase {

    @Override
    public void register(RegisterRequest request, StreamObserver<RegisterResponse> response) {
      registerCalls.add(new RegisterCall(CALLER_AUTH.get(), request));
      Status error = registerErrors.poll();
      if (error != null) {
        response.onError(error.asRuntimeException());
        return;
      }
      response.onNext(
          RegisterResponse.newBuilder()
              .setClusterId(CLUSTER_ID)
              .setAgentToken(AGENT_TOKEN)
              .setSettings(settings)
              .build());
      response.onCompleted();
    }

    @Override
    public StreamObserver<AgentMessage> connect(StreamObserver<HubMessage> response) {
      Stream stream = new Stream(CALLER_AUTH.get());
      stream.toAgent = response;
      streams.add(stream);
      Status error = connectError;
      if (error != null) {
        response.onError(error.asRuntimeException());
      }
      return new StreamObserver<>() {
        @Override
        public void onNext(AgentMessage message) {
          stream.received.add(new Received(message, System.nanoTime()));
          if (message.hasHello() && error == null) {
            response.onNext(
                HubMessage.newBuilder()
                    .setWelcome(
                        Welcome.newBuilder()
                            .setClusterId(CLUSTER_ID)
                            .setSettings(settings)
                            .setHubVersion("fake-hub"))
                    .build());
          }
        }

        @Override
        public void onError(Throwable t) {
          stream.errorFromAgent = Status.fromThrowable(t);
        }

        @Override
        public void onCompleted() {
          stream.halfClosedByAgent = true;
          if (error == null) {
            response.onCompleted();
          }
        }
      };
    }
  }
}
