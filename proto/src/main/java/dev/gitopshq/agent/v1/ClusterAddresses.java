package dev.gitopshq.agent.v1;

import java.util.regex.Pattern;

/**
 * Takes a cluster's internal addresses out of text a viewer reads: the Kubernetes client's errors
 * name the API server's URL ({@code https://10.96.0.1:443/api/v1/namespaces/...}) and the kubelet's
 * address, which a person who may read a pod's log has no business learning. The agent cleans the
 * errors it sends with a log stream's end, and the hub cleans them again before a viewer sees them.
 * Every URL, IPv4 address (with its port) and bracketed IPv6 address becomes {@link #REDACTED}.
 */
public final class ClusterAddresses {
  /** What stands where an address was. */
  public static final String REDACTED = "<cluster address>";

  private static final Pattern URL =
      Pattern.compile("(?i)\\b[a-z][a-z0-9+.-]{1,15}://[^\\s\"'<>]+");

  private static final Pattern IPV4 =
      Pattern.compile("(?<![\\w.])\\d{1,3}(?:\\.\\d{1,3}){3}(?::\\d{1,5})?(?![\\w.])");

  private static final Pattern IPV6 =
      Pattern.compile("\\[[0-9A-Fa-f:.%\\w]*:[0-9A-Fa-f:.%\\w]*\\](?::\\d{1,5})?");

  private ClusterAddresses() {}

  /** The text with every URL and IP address replaced by {@link #REDACTED}; "" for null. */
  public static String redact(String text) {
    if (text == null) {
      return "";
    }
    String s = URL.matcher(text).replaceAll(REDACTED);
    s = IPV6.matcher(s).replaceAll(REDACTED);
    return IPV4.matcher(s).replaceAll(REDACTED);
  }
}
