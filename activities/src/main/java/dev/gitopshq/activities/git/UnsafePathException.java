package dev.gitopshq.activities.git;

/** A user-supplied path that could escape its directory; the message names path and reason. */
public class UnsafePathException extends IllegalArgumentException {
  private final String path;
  private final String reason;

  public UnsafePathException(String path, String reason) {
    super("path '" + printable(path) + "' " + reason);
    this.path = path;
    this.reason = reason;
  }

  public String path() {
    return path;
  }

  public String reason() {
    return reason;
  }

  private static String printable(String p) {
    if (p == null) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    p.codePoints()
        .limit(200)
        .forEach(
            c -> {
              if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\x%02x", c));
              } else {
                b.appendCodePoint(c);
              }
            });
    return b.toString();
  }
}
