package dev.gitopshq.hub.logs;

import dev.gitopshq.hub.web.Checks;
import java.util.regex.Pattern;

/**
 * What a caller asked for, checked: names are RFC 1123 (namespace, container) or subdomain (pod)
 * names, tail and since are bounded.
 */
public record LogRequest(
    String namespace,
    String pod,
    String container,
    long tailLines,
    long sinceSeconds,
    boolean timestamps,
    boolean previous,
    boolean follow) {
  static final long MAX_TAIL_LINES = 100_000;
  static final long MAX_SINCE_SECONDS = 366L * 24 * 3600;
  private static final Pattern SUBDOMAIN = Pattern.compile("^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$");

  /** 400 naming the field when something is malformed. */
  public static LogRequest of(
      String namespace,
      String pod,
      String container,
      Long tailLines,
      Long sinceSeconds,
      boolean timestamps,
      boolean previous,
      boolean follow) {
    Checks c = new Checks();
    if (namespace == null || namespace.isEmpty()) {
      c.fail("namespace", "is required");
    } else {
      c.dnsLabel("namespace", namespace);
    }
    if (pod == null || pod.isEmpty()) {
      c.fail("pod", "is required");
    } else if (pod.length() > 253 || !SUBDOMAIN.matcher(pod).matches()) {
      c.fail("pod", "must be a DNS subdomain name of at most 253 characters");
    }
    if (container != null && !container.isEmpty()) {
      c.dnsLabel("container", container);
    }
    if (tailLines != null && (tailLines < 0 || tailLines > MAX_TAIL_LINES)) {
      c.fail("tailLines", "must be between 0 and " + MAX_TAIL_LINES);
    }
    if (sinceSeconds != null && (sinceSeconds < 1 || sinceSeconds > MAX_SINCE_SECONDS)) {
      c.fail("sinceSeconds", "must be between 1 and " + MAX_SINCE_SECONDS);
    }
    c.throwIfInvalid();
    return new LogRequest(
        namespace,
        pod,
        container == null ? "" : container,
        tailLines == null ? 0 : tailLines,
        sinceSeconds == null ? 0 : sinceSeconds,
        timestamps,
        previous,
        follow);
  }
}
