package dev.gitopshq.agent.proxy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The {@code NO_PROXY} rules, with the semantics of Go's {@code golang.org/x/net/http/httpproxy}
 * (kubectl, the GitLab agent), except that loopback addresses are not exempt by themselves:
 *
 * <ul>
 *   <li>{@code *} alone: no host uses the proxy;
 *   <li>{@code example.com}: that host and its subdomains;
 *   <li>{@code .example.com} or {@code *.example.com}: subdomains of example.com only;
 *   <li>{@code 10.1.2.3}, {@code ::1}: that IP address when the hub address is that literal;
 *   <li>{@code 10.0.0.0/8}, {@code fd00::/8}: IP literals in that range (host names are not
 *       resolved to check them);
 *   <li>any host or IP entry may end in {@code :port} (IPv6 as {@code [::1]:443}) to match only
 *       that port.
 * </ul>
 *
 * <p>Matching ignores case and a trailing dot. Entries that fit none of these forms never match.
 */
public final class NoProxy {

  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final Pattern IPV6 = Pattern.compile("[0-9a-f:.]*:[0-9a-f:.]*");

  private sealed interface Rule permits All, Cidr, Ip, Domain {}

  private record All(String entry) implements Rule {}

  private record Cidr(String entry, byte[] network, int prefix) implements Rule {}

  private record Ip(String entry, InetAddress address, int port) implements Rule {}

  /** {@code suffix} starts with '.'; {@code matchesItself} also matches the bare domain. */
  private record Domain(String entry, String suffix, boolean matchesItself, int port)
      implements Rule {}

  private final List<Rule> rules;

  private NoProxy(List<Rule> rules) {
    this.rules = List.copyOf(rules);
  }

  /** Parses {@code NO_PROXY} entries (already split at commas); unusable entries are dropped. */
  public static NoProxy parse(List<String> entries) {
    List<Rule> rules = new ArrayList<>();
    for (String raw : entries) {
      String entry = raw.trim().toLowerCase(Locale.ROOT);
      if (entry.isEmpty()) {
        continue;
      }
      rule(entry).ifPresent(rules::add);
    }
    return new NoProxy(rules);
  }

  private static Optional<Rule> rule(String entry) {
    if (entry.equals("*")) {
      return Optional.of(new All(entry));
    }
    int slash = entry.indexOf('/');
    if (slash >= 0) {
      Optional<InetAddress> network = ipLiteral(entry.substring(0, slash));
      int prefix = parseInt(entry.substring(slash + 1), 128);
      if (network.isEmpty() || prefix < 0 || prefix > network.get().getAddress().length * 8) {
        return Optional.empty();
      }
      return Optional.of(new Cidr(entry, network.get().getAddress(), prefix));
    }
    String host = entry;
    String portText = null;
    if (entry.startsWith("[")) {
      int close = entry.indexOf(']');
      if (close < 0) {
        return Optional.empty();
      }
      host = entry.substring(1, close);
      String rest = entry.substring(close + 1);
      if (!rest.isEmpty()) {
        if (!rest.startsWith(":")) {
          return Optional.empty();
        }
        portText = rest.substring(1);
      }
    } else if (entry.indexOf(':') >= 0 && entry.indexOf(':') == entry.lastIndexOf(':')) {
      int colon = entry.indexOf(':');
      host = entry.substring(0, colon);
      portText = entry.substring(colon + 1);
    }
    int port = 0; // any port
    if (portText != null) {
      port = parseInt(portText, 65_535);
      if (port < 1) {
        return Optional.empty();
      }
    }
    Optional<InetAddress> ip = ipLiteral(host);
    if (ip.isPresent()) {
      return Optional.of(new Ip(entry, ip.get(), port));
    }
    host = stripTrailingDot(host);
    if (host.startsWith("*.")) {
      host = host.substring(1);
    }
    if (host.isEmpty() || host.equals(".") || host.indexOf(':') >= 0 || host.indexOf('*') >= 0) {
      return Optional.empty();
    }
    return host.startsWith(".")
        ? Optional.of(new Domain(entry, host, false, port))
        : Optional.of(new Domain(entry, "." + host, true, port));
  }

  /**
   * The entry that exempts {@code host:port} from the proxy, if any.
   *
   * @param host a host name or IP literal, IPv6 with or without brackets
   */
  Optional<String> match(String host, int port) {
    String name = host.toLowerCase(Locale.ROOT);
    if (name.startsWith("[") && name.endsWith("]")) {
      name = name.substring(1, name.length() - 1);
    }
    name = stripTrailingDot(name);
    Optional<InetAddress> ip = ipLiteral(name);
    for (Rule rule : rules) {
      boolean matches =
          switch (rule) {
            case All all -> true;
            case Cidr cidr -> ip.isPresent() && inRange(ip.get().getAddress(), cidr);
            case Ip exact ->
                ip.isPresent()
                    && ip.get().equals(exact.address())
                    && portMatches(exact.port(), port);
            case Domain domain ->
                ip.isEmpty()
                    && (name.endsWith(domain.suffix())
                        || domain.matchesItself() && name.equals(domain.suffix().substring(1)))
                    && portMatches(domain.port(), port);
          };
      if (matches) {
        return Optional.of(entry(rule));
      }
    }
    return Optional.empty();
  }

  private static String entry(Rule rule) {
    return switch (rule) {
      case All all -> all.entry();
      case Cidr cidr -> cidr.entry();
      case Ip ip -> ip.entry();
      case Domain domain -> domain.entry();
    };
  }

  private static boolean portMatches(int rulePort, int port) {
    return rulePort == 0 || rulePort == port;
  }

  private static boolean inRange(byte[] address, Cidr cidr) {
    byte[] network = cidr.network();
    if (address.length != network.length) {
      return false;
    }
    int fullBytes = cidr.prefix() / 8;
    for (int i = 0; i < fullBytes; i++) {
      if (address[i] != network[i]) {
        return false;
      }
    }
    int remainingBits = cidr.prefix() % 8;
    if (remainingBits == 0) {
      return true;
    }
    int mask = (0xff << (8 - remainingBits)) & 0xff;
    return (address[fullBytes] & mask) == (network[fullBytes] & mask);
  }

  /** Parses an IP literal without ever asking DNS; IPv6 zone ids are not supported. */
  static Optional<InetAddress> ipLiteral(String text) {
    String value = text;
    if (value.startsWith("[") && value.endsWith("]")) {
      value = value.substring(1, value.length() - 1);
    }
    try {
      if (IPV4.matcher(value).matches()) {
        String[] parts = value.split("\\.");
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
          int octet = Integer.parseInt(parts[i]);
          if (octet > 255) {
            return Optional.empty();
          }
          bytes[i] = (byte) octet;
        }
        return Optional.of(InetAddress.getByAddress(bytes));
      }
      if (IPV6.matcher(value).matches()) {
        // With a ':' in it, InetAddress parses the text as an IPv6 literal and never resolves it.
        return Optional.of(InetAddress.getByName(value));
      }
    } catch (UnknownHostException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  private static String stripTrailingDot(String host) {
    return host.endsWith(".") && host.length() > 1 ? host.substring(0, host.length() - 1) : host;
  }

  /** A decimal number from 0 to {@code max}, or -1. */
  private static int parseInt(String text, int max) {
    if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return -1;
    }
    int value = Integer.parseInt(text);
    return value <= max ? value : -1;
  }

  @Override
  public String toString() {
    return rules.stream().map(NoProxy::entry).toList().toString();
  }
}
