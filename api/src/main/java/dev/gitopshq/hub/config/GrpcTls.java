package dev.gitopshq.hub.config;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.UnaryOperator;

/**
 * The hub's gRPC ports' TLS, loaded from PEM files the way an operator mounts them (a Kubernetes
 * {@code kubernetes.io/tls} Secret, or files made with openssl): the agent gateway's ({@code
 * AGENT_GRPC_TLS_CERT} / {@code _KEY}) and the peer port's ({@code GITOPSHQ_PEER_TLS_CERT} / {@code
 * _KEY} / {@code _CA}). A file that cannot be read or parsed stops the replica with the port's name
 * in the message, never the file's content.
 */
public final class GrpcTls {
  private GrpcTls() {}

  /** Whether a file setting is given: an empty or blank value means TLS is off. */
  public static boolean configured(String file) {
    return file != null && !file.isBlank();
  }

  /**
   * A server context with this certificate chain and key; {@code clientAuth} adds how client
   * certificates are asked for and trusted.
   *
   * @param what the port, for the error message ("agent gateway", "peer port")
   */
  public static SslContext server(
      String certFile, String keyFile, String what, UnaryOperator<SslContextBuilder> clientAuth) {
    try {
      return clientAuth
          .apply(GrpcSslContexts.forServer(new File(certFile), new File(keyFile)))
          .build();
    } catch (IOException | IllegalArgumentException e) {
      throw new UncheckedIOException(
          "cannot load the " + what + "'s TLS certificate or key", asIo(e));
    }
  }

  /**
   * A client context that presents this certificate chain and key, and trusts only servers whose
   * certificates the CA bundle in {@code caFile} signed.
   */
  public static SslContext client(String certFile, String keyFile, String caFile, String what) {
    try {
      return GrpcSslContexts.forClient()
          .keyManager(new File(certFile), new File(keyFile))
          .trustManager(new File(caFile))
          .build();
    } catch (IOException | IllegalArgumentException e) {
      throw new UncheckedIOException(
          "cannot load the " + what + "'s TLS certificate, key or CA bundle", asIo(e));
    }
  }

  private static IOException asIo(Exception e) {
    return e instanceof IOException io ? io : new IOException(e.getMessage(), e);
  }
}
