package dev.gitopshq.agent.identity;

/** The identity store could not be read or written. The message never contains a token. */
public final class IdentityStoreException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception with a message and the underlying cause. */
  public IdentityStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Creates the exception with a message. */
  public IdentityStoreException(String message) {
    super(message);
  }
}
