package dev.gitopshq.agent.proxy;

import io.grpc.HttpConnectProxiedSocketAddress;
import io.grpc.ProxiedSocketAddress;
import io.grpc.ProxyDetector;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the hub connection through an HTTP CONNECT proxy unless {@code NO_PROXY} exempts the hub.
 *
 * <p>gRPC asks before it resolves the hub's name, with an unresolved address; when the proxy is
 * used the hub's name is left to the proxy to resolve (as with any HTTPS proxy), and the CONNECT
 * request names the hub as configured, e.g. {@code CONNECT hub.example.com:443}. The proxy's own
 * name is resolved on every call, so a reconnect follows DNS changes of the proxy.
 */
public final class HubProxyDetector implements ProxyDetector {

  private static final Logger log = LoggerFactory.getLogger(HubProxyDetector.class);

  private final ProxyUrl proxy;
  private final NoProxy noProxy;

  public HubProxyDetector(ProxyUrl proxy, NoProxy noProxy) {
    this.proxy = Objects.requireNonNull(proxy, "proxy");
    this.noProxy = Objects.requireNonNull(noProxy, "noProxy");
  }

  /**
   * The proxy detector for the connection to the hub at {@code host:port}, empty when no proxy
   * variable applies to it; logs whether the hub is reached through the proxy or directly.
   */
  public static Optional<ProxyDetector> forHub(
      String hubAddress, boolean plaintext, ProxySettings settings) {
    Optional<ProxyUrl> proxy = settings.forHub(plaintext);
    if (proxy.isEmpty()) {
      return Optional.empty();
    }
    NoProxy noProxy = NoProxy.parse(settings.noProxy());
    int colon = hubAddress.lastIndexOf(':');
    String host = hubAddress.substring(0, colon);
    int port = Integer.parseInt(hubAddress.substring(colon + 1));
    Optional<String> exempt = noProxy.match(host, port);
    if (exempt.isPresent()) {
      log.info(
          "Hub {} matches NO_PROXY entry '{}': connecting directly, not through the proxy {}",
          hubAddress,
          exempt.get(),
          proxy.get());
    } else {
      log.info("Hub {} is reached through the HTTP CONNECT proxy {}", hubAddress, proxy.get());
    }
    return Optional.of(new HubProxyDetector(proxy.get(), noProxy));
  }

  @Override
  public ProxiedSocketAddress proxyFor(SocketAddress target) throws UnknownHostException {
    if (!(target instanceof InetSocketAddress address)
        || noProxy.match(address.getHostString(), address.getPort()).isPresent()) {
      return null;
    }
    InetSocketAddress proxyAddress = new InetSocketAddress(proxy.host(), proxy.port());
    if (proxyAddress.isUnresolved()) {
      // gRPC reports this as UNAVAILABLE and retries; the message holds no credentials.
      throw new UnknownHostException(
          "cannot resolve the proxy host " + proxy.host() + " from " + proxy.variable());
    }
    HttpConnectProxiedSocketAddress.Builder builder =
        HttpConnectProxiedSocketAddress.newBuilder()
            .setProxyAddress(proxyAddress)
            .setTargetAddress(address);
    if (proxy.username().isPresent()) {
      // gRPC sends "Proxy-Authorization: Basic ..." only with both set; "user@" means no password.
      builder.setUsername(proxy.username().get()).setPassword(proxy.password().orElse(""));
    }
    return builder.build();
  }

  @Override
  public String toString() {
    return "HubProxyDetector[proxy=" + proxy + ", noProxy=" + noProxy + "]";
  }
}
