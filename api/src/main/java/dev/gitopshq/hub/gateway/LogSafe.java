package dev.gitopshq.hub.gateway;

/**
 * Text that came from an agent, made safe to log: control characters (CR and LF first, so no one
 * can forge a log line) become visible escapes, and the text is cut at {@value #MAX} characters.
 */
public final class LogSafe {
  static final int MAX = 200;

  private LogSafe() {}

  public static String text(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder b = new StringBuilder(Math.min(s.length(), MAX) + 8);
    for (int i = 0; i < s.length() && b.length() < MAX; i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    if (b.length() >= MAX && s.length() > MAX) {
      b.append("…");
    }
    return b.toString();
  }
}
