package dev.gitopshq.activities.notify;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
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
    } catch (URISyntaxException e) {
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
      return isSpecialPurpose(b);
    }
    // NAT64 (64:ff9b::/96) reaches the IPv4 address in its last four bytes.
    if ((b[0] & 0xff) == 0x00
        && (b[1] & 0xff) == 0x64
        && (b[2] & 0xff) == 0xff
        && (b[3] & 0xff) == 0x9b) {
      boolean zeros = true;
      for (int i = 4; i < 12; i++) {
        zeros &= b[i] == 0;
      }
      if (zeros) {
        byte[] v4 = {b[12], b[13], b[14], b[15]};
        try {
          return isPrivate(InetAddress.getByAddress(v4));
        } catch (UnknownHostException e) {
          return true;
        }
      }
    }
    // IPv6 unique local addresses fc00::/7.
    return (b[0] & 0xfe) == 0xfc;
  }

  /**
   * IPv4 ranges that are not the public internet (RFC 6890), beyond what {@link InetAddress} names:
   * 0.0.0.0/8, carrier-grade NAT 100.64.0.0/10, IETF protocol assignments 192.0.0.0/24, the
   * documentation ranges 192.0.2.0/24, 198.51.100.0/24 and 203.0.113.0/24, benchmarking
   * 198.18.0.0/15, and 240.0.0.0/4 (reserved, with the broadcast address 255.255.255.255).
   */
  private static boolean isSpecialPurpose(byte[] b) {
    int first = b[0] & 0xff;
    int second = b[1] & 0xff;
    int third = b[2] & 0xff;
    return first == 0
        || (first == 100 && second >= 64 && second < 128)
        || (first == 192 && second == 0 && (third == 0 || third == 2))
        || (first == 198 && (second == 18 || second == 19))
        || (first == 198 && second == 51 && third == 100)
        || (first == 203 && second == 0 && third == 113)
        || first >= 240;
  }
}
