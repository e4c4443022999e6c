package dev.gitopshq.bench;

import dev.gitopshq.agent.link.Backoff;
import dev.gitopshq.agent.v1.AgentHubGrpc;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.Hello;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.RegisterRequest;
import dev.gitopshq.agent.v1.RegisterResponse;
import io.grpc.Channel;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.MetadataUtils;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * What every benchmark's simulated agent does as the real agent does: Register with its
 * registration token, open the Connect stream with its agent token and say Hello (version 0.1.0,
 * capability {@code observe}). The benchmarks extend it with what they measure: the hooks see the
 * Welcome, every HeartbeatAck and the stream's end, and {@link #backoff} is the agent's own
 * reconnect backoff (full jitter from 1 s, capped at 60 s, as HubLink's) for those that reconnect.
 */
class SimAgent {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  volatile String name;
  ManagedChannel channel;
  String token;
  ClientCallStreamObserver<AgentMessage> out;
  final Backoff backoff =
      new Backoff(
          Duration.ofSeconds(1),
          Duration.ofSeconds(60),
          () -> ThreadLocalRandom.current().nextDouble());
  private final int heartbeatIntervalSeconds;

  /** {@code heartbeatIntervalSeconds}: what the agent says in its Hello. */
  SimAgent(String name, int heartbeatIntervalSeconds) {
    this.name = name;
    this.heartbeatIntervalSeconds = heartbeatIntervalSeconds;
  }

  /** The hub welcomed the stream (called before the backoff is reset). */
  void welcomed() {}

  /** The hub acknowledged heartbeat {@code sequence}. */
  void acked(long sequence) {}

  /** The stream failed. */
  void failed(Throwable e) {}

  /** The hub ended the stream. */
  void completed() {}

  /** Opens the Connect stream ({@link #channel}, {@link #token}) and says Hello. */
  void open() {
    AgentHubGrpc.newStub(channel)
        .withInterceptors(bearer(token))
        .connect(
            new ClientResponseObserver<AgentMessage, HubMessage>() {
              @Override
              public void beforeStart(ClientCallStreamObserver<AgentMessage> s) {
                synchronized (SimAgent.this) {
                  out = s;
                }
              }

              @Override
              public void onNext(HubMessage m) {
                if (m.hasWelcome()) {
                  welcomed();
                  backoff.reset();
                } else if (m.hasHeartbeatAck()) {
                  acked(m.getHeartbeatAck().getSequence());
                }
              }

              @Override
              public void onError(Throwable e) {
                failed(e);
              }

              @Override
              public void onCompleted() {
                completed();
              }
            });
    send(
        AgentMessage.newBuilder()
            .setHello(
                Hello.newBuilder()
                    .setAgentVersion("0.1.0")
                    .addCapabilities("observe")
                    .setHeartbeatIntervalSeconds(heartbeatIntervalSeconds))
            .build());
  }

  /** Sends on the current stream (a stream's observer is not thread-safe: one sender at a time). */
  synchronized void send(AgentMessage m) {
    out.onNext(m);
  }

  /**
   * Registers cluster {@code clusterName} over {@code channel}: its agent token. Like the agent,
   * tries again when the hub answers UNAVAILABLE (a busy hub does when its database pool is
   * exhausted), 1 s, 2 s, ... apart, {@code attempts} times in all; each call has 60 s.
   */
  static RegisterResponse register(
      Channel channel, String clusterName, String registrationToken, int attempts)
      throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        return AgentHubGrpc.newBlockingStub(channel)
            .withInterceptors(bearer(registrationToken))
            .withDeadlineAfter(60, TimeUnit.SECONDS)
            .register(
                RegisterRequest.newBuilder()
                    .setClusterName(clusterName)
                    .setAgentVersion("0.1.0")
                    .addCapabilities("observe")
                    .build());
      } catch (StatusRuntimeException e) {
        if (attempt >= attempts || e.getStatus().getCode() != Status.Code.UNAVAILABLE) {
          throw e;
        }
        System.err.println("registering " + clusterName + " failed, retrying: " + e.getStatus());
        Thread.sleep(1_000L * attempt);
      }
    }
  }

  /** The {@code authorization: Bearer <token>} header on every call. */
  static ClientInterceptor bearer(String token) {
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, "Bearer " + token);
    return MetadataUtils.newAttachHeadersInterceptor(headers);
  }
}
