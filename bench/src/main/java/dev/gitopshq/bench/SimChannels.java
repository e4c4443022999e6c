package dev.gitopshq.bench;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import java.io.File;
import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The simulated agents' TLS channels to the hub (or a load balancer in front of it): one Netty
 * channel per agent, as real agents have, all on one event loop of two threads and two callback
 * threads, trusting {@code --ca} and checking the certificate's name {@code 127.0.0.1}.
 */
final class SimChannels implements AutoCloseable {
  private final SslContext ssl;
  private final EventLoopGroup loop;
  private final ExecutorService callbacks;

  SimChannels(File ca) throws IOException {
    ssl = GrpcSslContexts.forClient().trustManager(ca).build();
    loop = new NioEventLoopGroup(2);
    callbacks = Executors.newFixedThreadPool(2);
  }

  /** A channel to {@code host:port}, to be completed ({@code keepAliveTime}) and built. */
  NettyChannelBuilder to(String host, int port) {
    return NettyChannelBuilder.forAddress(host, port)
        .overrideAuthority("127.0.0.1")
        .sslContext(ssl)
        .eventLoopGroup(loop)
        .channelType(NioSocketChannel.class)
        .executor(callbacks);
  }

  @Override
  public void close() {
    callbacks.shutdownNow();
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}
