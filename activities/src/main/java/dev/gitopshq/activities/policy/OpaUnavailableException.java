package dev.gitopshq.activities.policy;

/**
 * OPA could not be reached, did not answer in time, or does not hold the policy yet (it restarted
 * and the hub has not republished). No decision exists, so callers fail closed; retrying later can
 * succeed, and the command workflow does exactly that.
 */
public class OpaUnavailableException extends OpaException {
  public OpaUnavailableException(String message) {
    super(message);
  }

  public OpaUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
