package dev.gitopshq.activities.notify;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * Where an organization's webhook may point. Organizations are tenants of one hub, so an
 * organization admin must not be able to make the hub POST to addresses only the hub can reach
 * (loopback, private networks, link-local metadata services): such targets are refused unless the
 * hub allows them for that organization. The check runs when the URL is saved and again before each
 * delivery, since a name can resolve elsewhere later.
 */
public final class WebhookAddresses {
  /** The longest URL accepted. */
  public static final int MAX_URL = 2048;

  private WebhookAddresses() {}

  /** What is wrong with the URL as a webhook, or null when it may be used. */
  public static String problem(String url, boolean allowPrivate) {
    if (url == null || url.isBlank()) {
      return "is required";
    }
    if (url.length() > MAX_URL) {
      return "must be at most " + MAX_URL + " characters";
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (java.net.URISyntaxException e) {
      return "is not a valid URL";
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("https") && !scheme.equals("http")) {
      return "must be an http or https URL";
    }
    if (uri.getHost() == null || uri.getRawUserInfo() != null) {
      return "must name a host, without user info";
    }
    return allowPrivate ? null : privateProblem(uri.getHost());
  }

  /** Why the host is not a public address, or null when every address it resolves to is. */
  static String privateProblem(String host) {
    InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName(host);
    } catch (UnknownHostException e) {
      return "names a host that does not resolve";
    }
    for (InetAddress a : addresses) {
      if (isPrivate(a)) {
        return "points at a loopback, private or link-local address ("
            + a.getHostAddress()
            + "), which this hub does not allow for this organization";
      }
    }
    return null;
  }

  static boolean isPrivate(InetAddress a) {
    if (a.isLoopbackAddress()
        || a.isAnyLocalAddress()
        || a.isLinkLocalAddress()
        || a.isSiteLocalAddress()
        || a.isMulticastAddress()) {
      return true;
    }
    byte[] b = a.getAddress();
    if (b.length == 4) {
      int first = b[0] & 0xff;
      int second = b[1] & 0xff;
      // Carrier-grade NAT 100.64.0.0/10, and 0.0.0.0/8.
      return (first == 100 && second >= 64 && second < 128) || first == 0;
    }
    // IPv6 unique local addresses fc00::/7.
    return (b[0] & 0xfe) == 0xfc;
  }
}
