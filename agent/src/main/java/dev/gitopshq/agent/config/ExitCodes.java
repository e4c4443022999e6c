package dev.gitopshq.agent.config;

/**
 * The agent process's exit codes, the one list: the agent, its link to the hub and {@code make run}
 * (which re-registers the demo agent on {@link #IDENTITY_REJECTED}) all mean these.
 */
public final class ExitCodes {
  /** The agent was stopped (close, or a signal). */
  public static final int OK = 0;

  /** The identity store failed (the identity could not be loaded or saved). */
  public static final int IDENTITY_STORE = 1;

  /** Configuration error, missing credentials, or the registration was rejected. */
  public static final int CONFIGURATION = 2;

  /** The hub rejected the agent's identity (token revoked or cluster deregistered). */
  public static final int IDENTITY_REJECTED = 3;

  private ExitCodes() {}
}
