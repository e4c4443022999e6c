package dev.gitopshq.agent.proxy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The proxy environment: {@code HTTPS_PROXY}, {@code HTTP_PROXY} and {@code NO_PROXY}. Each is read
 * in upper case first and in lower case if the upper-case form is unset or blank, as Go programs
 * (kubectl, the GitLab agent) do.
 *
 * @param httpsProxy the proxy for TLS connections, if set
 * @param httpProxy the proxy for plaintext connections, if set
 * @param noProxy the {@code NO_PROXY} entries, trimmed and lower-cased, without empty ones
 */
public record ProxySettings(
    Optional<ProxyUrl> httpsProxy, Optional<ProxyUrl> httpProxy, List<String> noProxy) {

  /**
   * HTTP CONNECT proxy for TLS connections to the hub, {@code http://[user:password@]host[:port]};
   * {@code https_proxy} is read when it is unset. Also used for plaintext connections when {@link
   * #HTTP_PROXY} is unset.
   */
  public static final String HTTPS_PROXY = "HTTPS_PROXY";

  /**
   * HTTP CONNECT proxy for plaintext connections to the hub ({@code GITOPSHQ_HUB_PLAINTEXT});
   * {@code http_proxy} is read when it is unset. Also used for TLS connections when {@link
   * #HTTPS_PROXY} is unset.
   */
  public static final String HTTP_PROXY = "HTTP_PROXY";

  /**
   * Comma-separated hosts, domains, IP addresses and CIDR ranges to reach without the proxy; {@code
   * no_proxy} is read when it is unset.
   */
  public static final String NO_PROXY = "NO_PROXY";

  /** No proxy variables set. */
  public static final ProxySettings NONE =
      new ProxySettings(Optional.empty(), Optional.empty(), List.of());

  /** Validates the components and makes the list immutable. */
  public ProxySettings {
    Objects.requireNonNull(httpsProxy, "httpsProxy");
    Objects.requireNonNull(httpProxy, "httpProxy");
    noProxy = List.copyOf(noProxy);
  }

  /**
   * The proxy for a connection to the hub: {@link #httpsProxy} for TLS, {@link #httpProxy} for
   * plaintext, and whichever is set when only one is (the tunnel is the same HTTP CONNECT either
   * way, and a cluster that sets only one of them still expects it to be used).
   */
  public Optional<ProxyUrl> forHub(boolean plaintext) {
    return plaintext ? httpProxy.or(() -> httpsProxy) : httpsProxy.or(() -> httpProxy);
  }

  /** Describes the settings with every password masked. */
  @Override
  public String toString() {
    return "ProxySettings[httpsProxy="
        + httpsProxy.map(ProxyUrl::toString).orElse("<not set>")
        + ", httpProxy="
        + httpProxy.map(ProxyUrl::toString).orElse("<not set>")
        + ", noProxy="
        + noProxy
        + "]";
  }

  /**
   * Reads {@link #HTTPS_PROXY}, {@link #HTTP_PROXY} and {@link #NO_PROXY}, upper case first.
   *
   * @throws ProxyConfigException naming the variable whose URL is invalid, password masked
   */
  public static ProxySettings fromEnv(Map<String, String> env) {
    List<String> noProxy = new ArrayList<>();
    upperOrLower(env, NO_PROXY)
        .ifPresent(
            value -> {
              for (String entry : value.split(",")) {
                String trimmed = entry.trim().toLowerCase(Locale.ROOT);
                if (!trimmed.isEmpty()) {
                  noProxy.add(trimmed);
                }
              }
            });
    return new ProxySettings(proxyUrl(env, HTTPS_PROXY), proxyUrl(env, HTTP_PROXY), noProxy);
  }

  /** The upper-case variable's value, or the lower-case one's if that is unset or blank. */
  private static Optional<String> upperOrLower(Map<String, String> env, String upperName) {
    return optional(env, upperName).or(() -> optional(env, upperName.toLowerCase(Locale.ROOT)));
  }

  private static Optional<ProxyUrl> proxyUrl(Map<String, String> env, String upperName) {
    String variable =
        optional(env, upperName).isPresent() ? upperName : upperName.toLowerCase(Locale.ROOT);
    return optional(env, variable).map(value -> ProxyUrl.parse(variable, value));
  }

  /** A variable's trimmed value; blank counts as unset, as Helm renders unset values empty. */
  private static Optional<String> optional(Map<String, String> env, String name) {
    return Optional.ofNullable(env.get(name)).map(String::trim).filter(v -> !v.isEmpty());
  }
}
