package dev.gitopshq.activities.git;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The rule for every path a user hands the hub (a bundle's file, a base's file, an entry of a chart
 * archive): relative, forward slashes, no empty, {@code .} or {@code ..} segment, no {@code .git}
 * segment (in any case, and in the spellings Windows and macOS open as {@code .git}: with trailing
 * dots or spaces, {@code git~1}, or with characters macOS ignores), no control characters. A path
 * that passes cannot name anything outside the directory it is resolved against, and no clone of
 * the repository checks it out into its own {@code .git} directory.
 */
public final class RepoPaths {
  /** The longest path accepted, in characters. */
  public static final int MAX_LENGTH = 1024;

  /** Code points HFS+ leaves out when comparing names (as listed by Git's own path checks). */
  private static final Pattern IGNORED_BY_HFS =
      Pattern.compile("[\\u200c-\\u200f\\u202a-\\u202e\\u206a-\\u206f\\ufeff]");

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
      if (isGitDirectory(segment)) {
        return "must not contain a '.git' segment";
      }
    }
    return null;
  }

  /**
   * True when a checkout on some file system would open {@code segment} as {@code .git}: NTFS drops
   * trailing dots and spaces and knows the short name {@code GIT~1}; HFS+ ignores some zero-width
   * characters; both ignore case.
   */
  private static boolean isGitDirectory(String segment) {
    String s = IGNORED_BY_HFS.matcher(segment).replaceAll("").toLowerCase(Locale.ROOT);
    int end = s.length();
    while (end > 0 && (s.charAt(end - 1) == '.' || s.charAt(end - 1) == ' ')) {
      end--;
    }
    s = s.substring(0, end);
    return s.equals(".git") || s.equals("git~1");
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
