package dev.gitopshq.agent.proxy;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * An HTTP proxy from {@code HTTPS_PROXY} or {@code HTTP_PROXY}. The agent opens an HTTP CONNECT
 * tunnel through it, with basic authentication if the URL has user-info. {@link #toString()} and
 * {@link #masked()} never show the password.
 *
 * @param variable the environment variable it came from, e.g. {@code https_proxy}
 * @param host the proxy's host name or IP address (IPv6 without brackets)
 * @param port the proxy's port, 80 if the URL has none
 * @param username the basic-auth user name, percent-decoded, if the URL has user-info
 * @param password the basic-auth password, percent-decoded, if the URL has one
 */
public record ProxyUrl(
    String variable, String host, int port, Optional<String> username, Optional<String> password) {

  /** Validates the components. */
  public ProxyUrl {
    Objects.requireNonNull(variable, "variable");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(username, "username");
    Objects.requireNonNull(password, "password");
  }

  /** The URL for log lines, with the password (if any) replaced by {@code ****}. */
  public String masked() {
    String userInfo =
        username.map(user -> user + (password.isPresent() ? ":****" : "") + "@").orElse("");
    String hostPart = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    return "http://" + userInfo + hostPart + ":" + port;
  }

  /** The masked URL and the variable it came from. */
  @Override
  public String toString() {
    return masked() + " (" + variable + ")";
  }

  /**
   * Parses {@code [http://][user[:password]@]host[:port][/]}. Error messages show the value with
   * its password masked.
   */
  public static ProxyUrl parse(String variable, String value) {
    String expected =
        "must be an HTTP proxy URL, http://[user:password@]host[:port] (was '"
            + maskPassword(value)
            + "')";
    URI uri;
    try {
      uri = new URI(value.contains("://") ? value : "http://" + value);
    } catch (URISyntaxException e) {
      // The exception's message quotes the input, password included: leave it out.
      throw new ProxyConfigException(variable, expected);
    }
    if (uri.getScheme() == null) {
      throw new ProxyConfigException(variable, expected);
    }
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http")) {
      throw new ProxyConfigException(
          variable,
          "uses the unsupported scheme '"
              + scheme
              + "': the"
              + " agent reaches the hub through an HTTP CONNECT proxy,"
              + " http://[user:password@]host[:port]"
              + " (was '"
              + maskPassword(value)
              + "')");
    }
    String host = uri.getHost();
    String path = uri.getRawPath();
    if (host == null
        || host.isEmpty()
        || uri.getRawQuery() != null
        || uri.getRawFragment() != null
        || (path != null && !path.isEmpty() && !path.equals("/"))
        || uri.getPort() == 0
        || uri.getPort() > 65_535) {
      throw new ProxyConfigException(variable, expected);
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    Optional<String> username = Optional.empty();
    Optional<String> password = Optional.empty();
    String userInfo = uri.getRawUserInfo();
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      String rawUser = colon < 0 ? userInfo : userInfo.substring(0, colon);
      username = Optional.of(percentDecode(rawUser));
      if (colon >= 0) {
        password = Optional.of(percentDecode(userInfo.substring(colon + 1)));
      }
      if (username.get().isEmpty()) {
        throw new ProxyConfigException(
            variable, "has user-info without a user name (was '" + maskPassword(value) + "')");
      }
    }
    return new ProxyUrl(
        variable,
        host.toLowerCase(Locale.ROOT),
        uri.getPort() < 0 ? 80 : uri.getPort(),
        username,
        password);
  }

  /** Decodes %XX escapes (URI has checked them); unlike form decoding, '+' stays '+'. */
  private static String percentDecode(String raw) {
    return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  /**
   * The value with whatever stands between the first ':' of the user-info and the last '@' replaced
   * by {@code ****}; masks too much rather than too little on odd input.
   */
  public static String maskPassword(String value) {
    int schemeEnd = value.indexOf("://");
    int start = schemeEnd < 0 ? 0 : schemeEnd + 3;
    int at = value.lastIndexOf('@');
    if (at < start) {
      return value;
    }
    int colon = value.indexOf(':', start);
    if (colon < 0 || colon > at) {
      return value;
    }
    return value.substring(0, colon + 1) + "****" + value.substring(at);
  }
}
