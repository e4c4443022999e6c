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
    return (b[0] & 0xfe) == 0xfc || isSpecialPurposeV6(b);
  }

  /**
   * IPv6 ranges that are not the public internet (the IANA IPv6 special-purpose registry), beyond
   * what {@link InetAddress} names: the IPv4-compatible ::/96 (any address in it but :: and ::1 is
   * refused), discard-only 100::/64, IETF protocol assignments 2001::/23 (Teredo among them, which
   * hides an IPv4 address), the documentation ranges 2001:db8::/32 and 3fff::/20, the local NAT64
   * prefix 64:ff9b:1::/48, SRv6 segment identifiers 5f00::/16, and 6to4 2002::/16 when the IPv4
   * address it carries (bytes 2-5) is not public.
   */
  private static boolean isSpecialPurposeV6(byte[] b) {
    int w0 = ((b[0] & 0xff) << 8) | (b[1] & 0xff);
    int w1 = ((b[2] & 0xff) << 8) | (b[3] & 0xff);
    int w2 = ((b[4] & 0xff) << 8) | (b[5] & 0xff);
    boolean first96Zero = true;
    for (int i = 0; i < 12; i++) {
      first96Zero &= b[i] == 0;
    }
    boolean discard = w0 == 0x0100 && w1 == 0 && w2 == 0 && b[6] == 0 && b[7] == 0;
    if (first96Zero
        || discard
        || (w0 == 0x2001 && w1 < 0x0200)
        || (w0 == 0x2001 && w1 == 0x0db8)
        || (w0 == 0x3fff && w1 < 0x1000)
        || (w0 == 0x0064 && w1 == 0xff9b && w2 == 0x0001)
        || w0 == 0x5f00) {
      return true;
    }
    if (w0 == 0x2002) {
      byte[] v4 = {b[2], b[3], b[4], b[5]};
      try {
        return isPrivate(InetAddress.getByAddress(v4));
      } catch (UnknownHostException e) {
        return true;
      }
    }
    return false;
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
