package dev.gitopshq.agent.link;

import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.config.ConfigException;
import dev.gitopshq.agent.proxy.HubProxyDetector;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ProxyDetector;
import io.grpc.TlsChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Builds the gRPC channel to the hub from the configuration: TLS verified against the system trust
 * store (plus {@code GITOPSHQ_HUB_CA_FILE} if set), TLS without verification, or plaintext.
 *
 * <p>The channel sends keepalive pings every 30 seconds even without active calls, so that proxies
 * and load balancers do not drop the idle-looking Connect stream and a dead hub is noticed within
 * about 40 seconds. The hub's server must permit pings that often ({@code permitKeepAliveTime} of
 * 30 seconds or less, {@code permitKeepAliveWithoutCalls}); otherwise it closes the connection with
 * {@code ENHANCE_YOUR_CALM}.
 *
 * <p>If {@code HTTPS_PROXY} / {@code HTTP_PROXY} (or their lowercase forms) are set, the channel
 * tunnels to the hub through that HTTP CONNECT proxy (see {@link AgentConfig#hubProxy()}), unless
 * the hub's host matches {@code NO_PROXY} (see {@link dev.gitopshq.agent.proxy.NoProxy}). TLS to
 * the hub runs inside the tunnel, end to end. Without proxy variables gRPC's default applies (the
 * JVM's proxy system properties, if any).
 */
public final class HubChannels {

  /** Seconds between keepalive pings. */
  public static final int KEEPALIVE_SECONDS = 30;

  private static final int KEEPALIVE_TIMEOUT_SECONDS = 10;

  private HubChannels() {}

  /**
   * Creates the channel; it connects lazily, on the first call. If a proxy variable is set, logs
   * one line saying which proxy (password masked) the hub connection uses, or that {@code NO_PROXY}
   * exempts the hub.
   *
   * @throws ConfigException if the CA file holds no usable certificate
   */
  public static ManagedChannel create(AgentConfig config, String agentVersion) {
    return create(config, agentVersion, null);
  }

  /**
   * Creates the channel as {@link #create(AgentConfig, String)} does; over TLS every new connection
   * presents the client certificate {@code keys} holds then (mutual TLS), if any.
   */
  public static ManagedChannel create(AgentConfig config, String agentVersion, ClientKeys keys) {
    NettyChannelBuilder builder =
        NettyChannelBuilder.forTarget(config.hubAddress(), credentials(config, keys))
            .keepAliveTime(KEEPALIVE_SECONDS, TimeUnit.SECONDS)
            .keepAliveTimeout(KEEPALIVE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
            .keepAliveWithoutCalls(true)
            .userAgent("gitopshq-agent/" + agentVersion);
    proxyDetector(config).ifPresent(builder::proxyDetector);
    return builder.build();
  }

  /** The proxy detector for the hub channel, empty when no proxy variable is set. */
  static Optional<ProxyDetector> proxyDetector(AgentConfig config) {
    return HubProxyDetector.forHub(config.hubAddress(), config.hubPlaintext(), config.proxy());
  }

  private static ChannelCredentials credentials(AgentConfig config, ClientKeys keys) {
    if (config.hubPlaintext()) {
      return InsecureChannelCredentials.create();
    }
    TlsChannelCredentials.Builder tls = TlsChannelCredentials.newBuilder();
    if (keys != null) {
      tls.keyManager(keys);
    }
    if (config.hubInsecure()) {
      return tls.trustManager(new TrustEverything()).build();
    }
    if (config.hubCaFile().isPresent()) {
      return tls.trustManager(systemTrustPlus(config.hubCaFile().get())).build();
    }
    return tls.build();
  }

  /**
   * A trust manager that accepts the system's CAs and the ones in {@code caFile}, with the usual
   * PKIX checks and hostname verification.
   */
  private static TrustManager[] systemTrustPlus(Path caFile) {
    try {
      KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
      trusted.load(null, null);
      TrustManagerFactory system =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      system.init((KeyStore) null);
      int index = 0;
      for (TrustManager manager : system.getTrustManagers()) {
        if (manager instanceof X509TrustManager x509) {
          for (X509Certificate issuer : x509.getAcceptedIssuers()) {
            trusted.setCertificateEntry("system-" + index++, issuer);
          }
        }
      }
      Collection<? extends Certificate> extra;
      try (InputStream in = Files.newInputStream(caFile)) {
        extra = CertificateFactory.getInstance("X.509").generateCertificates(in);
      }
      if (extra.isEmpty()) {
        throw new ConfigException(
            AgentConfig.HUB_CA_FILE, "names " + caFile + ", which contains no PEM certificate");
      }
      for (Certificate certificate : extra) {
        trusted.setCertificateEntry("ca-file-" + index++, certificate);
      }
      TrustManagerFactory combined =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      combined.init(trusted);
      return combined.getTrustManagers();
    } catch (IOException | GeneralSecurityException e) {
      throw new ConfigException(
          AgentConfig.HUB_CA_FILE,
          "names " + caFile + ", which cannot be read as PEM certificates: " + e.getMessage());
    }
  }

  /**
   * Accepts any server certificate, for {@code GITOPSHQ_HUB_INSECURE}. It extends {@link
   * X509ExtendedTrustManager} because the JDK adds its own hostname check around plain {@link
   * X509TrustManager}s, which would defeat the setting.
   */
  private static final class TrustEverything extends X509ExtendedTrustManager {

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
