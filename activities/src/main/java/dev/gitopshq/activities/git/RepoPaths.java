package dev.gitopshq.activities.git;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The rule for every path a user hands the hub (a bundle's file, a base's file, an entry of a chart
 * archive): relative, forward slashes, no empty, {@code .} or {@code ..} segment, no {@code .git}
 * segment (in any case, and in the spellings Windows and macOS open as {@code .git}: with trailing
 * dots or spaces, an NTFS stream such as {@code .git::$INDEX_ALLOCATION}, the short names {@code
 * git~N}, or with characters macOS ignores), no {@code .gitmodules} or {@code .gitattributes} (Git
 * reads them from the tree: submodules, filters; in the same spellings, and their NTFS short names
 * as Git's own {@code verify_path} knows them), no {@code ':'} (NTFS streams), no control
 * characters. A path that passes cannot name anything outside the directory it is resolved against,
 * and no clone of the repository checks it out into its own {@code .git} directory or takes Git
 * configuration from it.
 */
public final class RepoPaths {
  /** The longest path accepted, in characters. */
  public static final int MAX_LENGTH = 1024;

  /** Code points HFS+ leaves out when comparing names (as listed by Git's own path checks). */
  private static final Pattern IGNORED_BY_HFS =
      Pattern.compile("[\\u200c-\\u200f\\u202a-\\u202e\\u206a-\\u206f\\ufeff]");

  /** NTFS short names of {@code .git}: {@code GIT~1}, and any other number Windows may assign. */
  private static final Pattern NTFS_SHORT_GIT = Pattern.compile("git~[1-9][0-9]*");

  /**
   * {@code .gitmodules} and {@code .gitattributes} and their NTFS short names: the regular ones
   * ({@code gitmod~1}..4) and the fall-back hashed ones Git checks ({@code gi7eba~N}, {@code
   * gi250a~N}).
   */
  private static final Pattern GIT_SPECIAL_FILE =
      Pattern.compile(
          "\\.gitmodules|\\.gitattributes|gitmod~[1-4]|gitatt~[1-4]|gi7eba~[1-9]|gi250a~[1-9]");

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
      if (segment.indexOf(':') >= 0) {
        return "must not contain ':' (a Windows drive or NTFS stream)";
      }
      if (isGitDirectory(segment)) {
        return "must not contain a '.git' segment";
      }
      if (GIT_SPECIAL_FILE.matcher(normalized(segment)).matches()) {
        return "must not name .gitmodules or .gitattributes: Git reads them from the tree";
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
    String s = normalized(segment);
    return s.equals(".git") || NTFS_SHORT_GIT.matcher(s).matches();
  }

  /**
   * The name a case-insensitive file system opens: without the characters HFS+ ignores, lower case,
   * before an NTFS stream ({@code :}), without trailing dots and spaces.
   */
  private static String normalized(String segment) {
    String s = IGNORED_BY_HFS.matcher(segment).replaceAll("").toLowerCase(Locale.ROOT);
    int colon = s.indexOf(':');
    if (colon >= 0) {
      s = s.substring(0, colon);
    }
    int end = s.length();
    while (end > 0 && (s.charAt(end - 1) == '.' || s.charAt(end - 1) == ' ')) {
      end--;
    }
    return s.substring(0, end);
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
