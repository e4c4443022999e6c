package dev.gitopshq.agent.link;

/**
 * The link cannot continue and the agent should stop with {@link #exitCode()}: the hub rejected a
 * token, or refused the registration. Retrying would not help; an operator has to act, and the
 * message says what to do. The message never contains a token.
 */
public final class LinkFailure extends Exception {

  private static final long serialVersionUID = 1L;

  private final int exitCode;

  /** Creates the failure with the process exit code it maps to. */
  public LinkFailure(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  /** The process exit code for this failure. */
  public int exitCode() {
    return exitCode;
  }
}
