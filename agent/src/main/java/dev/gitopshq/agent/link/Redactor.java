package dev.gitopshq.agent.link;

import java.util.regex.Pattern;

/**
 * Removes anything that looks like a GitOpsHQ token from text that came from elsewhere (a status
 * description from the hub, an exception message) before it is logged. The agent never puts a token
 * into a message itself; this guards against a far side that does.
 */
public final class Redactor {

  private static final Pattern TOKEN = Pattern.compile("ghqa_(reg_)?[A-Za-z0-9]+");

  private Redactor() {}

  /** The text with every token-shaped word replaced by {@code ghqa_<redacted>}. */
  public static String redact(String text) {
    return text == null ? "" : TOKEN.matcher(text).replaceAll("ghqa_<redacted>");
  }
}
