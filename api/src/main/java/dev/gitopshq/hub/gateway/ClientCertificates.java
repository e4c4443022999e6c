package dev.gitopshq.hub.gateway;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.net.Socket;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Moves the client certificate an agent presented over mutual TLS into the call's {@link Context}
 * (null without TLS or without a certificate). The TLS handshake already proved the agent holds the
 * certificate's key; the service decides whether the certificate is any good ({@code
 * AgentCertificates.check}), so every refusal is an UNAUTHENTICATED status rather than a failed
 * handshake.
 */
final class ClientCertificates implements ServerInterceptor {
  static final Context.Key<X509Certificate> CERTIFICATE = Context.key("gitopshq-client-cert");

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    X509Certificate cert = null;
    SSLSession tls = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
    if (tls != null) {
      try {
        Certificate[] chain = tls.getPeerCertificates();
        if (chain.length > 0 && chain[0] instanceof X509Certificate x509) {
          cert = x509;
        }
      } catch (SSLPeerUnverifiedException none) {
        // No client certificate: the agent token alone, where the organization allows it.
      }
    }
    return Contexts.interceptCall(
        Context.current().withValue(CERTIFICATE, cert), call, headers, next);
  }

  /**
   * The gateway's TLS trust for client certificates: any certificate the client proves it holds is
   * let through the handshake, and the service checks it against the organization's CA and records
   * (so a CA created later needs no reload, and a bad certificate gets UNAUTHENTICATED). Client
   * authentication is optional: an agent without a certificate sends none.
   */
  static final class AnyClientCertificate extends X509ExtendedTrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      throw new CertificateException("not a client");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      throw new CertificateException("not a client");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      throw new CertificateException("not a client");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
