package dev.gitopshq.cli;

/**
 * The exit codes of {@code gitopshq}, documented in docs/cli.md and in {@code gitopshq --help}. A
 * script can branch on them without parsing the message.
 */
public final class ExitCode {
  /** Success. */
  public static final int OK = 0;

  /** Any other error, e.g. a request the hub refused as invalid (400). */
  public static final int ERROR = 1;

  /** The command line itself is wrong (unknown option, missing argument). */
  public static final int USAGE = 2;

  /** The object does not exist (404), in the caller's organization. */
  public static final int NOT_FOUND = 3;

  /** No token, a token the hub refused (401), or a missing permission (403). */
  public static final int FORBIDDEN = 4;

  /** A conflict with the object's state (409), or refused by policy (422). */
  public static final int CONFLICT = 5;

  /**
   * What was asked finished badly: a watched command ended failed, rejected, expired or cancelled;
   * the audit chain is broken; a replayed history diverged.
   */
  public static final int FAILED = 6;

  /** The hub (or a service it needs, 503) could not be reached. */
  public static final int UNREACHABLE = 7;

  static final String HELP =
      "Exit codes: 0 ok, 1 error, 2 usage, 3 not found, 4 unauthenticated or forbidden,"
          + " 5 conflict or refused by policy, 6 command failed / audit chain broken / replay"
          + " diverged, 7 hub unreachable.";

  private ExitCode() {}
}
