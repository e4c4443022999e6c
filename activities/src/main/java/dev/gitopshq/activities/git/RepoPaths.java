package dev.gitopshq.activities.git;

import java.util.Locale;

/**
 * The rule for every path a user hands the hub (a bundle's file, a base's file, an entry of a
 * chart archive): relative, forward slashes, no empty, {@code .} or {@code ..} segment, no {@code
 * .git} segment, no control characters. A path that passes cannot name anything outside the
 * directory it is resolved against.
 */
public final class RepoPaths {
  /** The longest path accepted, in characters. */
  public static final int MAX_LENGTH = 1024;

  private RepoPaths() {}

  /** Why {@code path} is refused, or null when it is safe. */
  public static String problem(String path) {
    if (path == null || path.isEmpty()) {
      return "must not be empty";
    }
    if (path.length() > MAX_LENGTH) {
      return "must be at most " + MAX_LENGTH + " characters";
    }
    if (path.startsWith("/")) {
      return "must be relative, not absolute";
    }
    if (path.length() >= 2 && path.charAt(1) == ':') {
      return "must be relative, not a drive path";
    }
    if (path.indexOf('\\') >= 0) {
      return "must use '/' as the separator, not '\\'";
    }
    if (path.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
      return "must not contain control characters";
    }
    if (path.endsWith("/")) {
      return "must name a file, not end with '/'";
    }
    for (String segment : path.split("/", -1)) {
      if (segment.isEmpty()) {
        return "must not contain an empty segment ('//')";
      }
      if (segment.equals("..")) {
        return "must not contain '..': nothing may escape the repository";
      }
      if (segment.equals(".")) {
        return "must not contain '.' segments";
      }
      if (segment.toLowerCase(Locale.ROOT).equals(".git")) {
        return "must not contain a '.git' segment";
      }
    }
    return null;
  }

  /**
   * Returns {@code path} when it is safe.
   *
   * @throws UnsafePathException naming the path and the reason
   */
  public static String requireSafe(String path) {
    String why = problem(path);
    if (why != null) {
      throw new UnsafePathException(path, why);
    }
    return path;
  }
}
