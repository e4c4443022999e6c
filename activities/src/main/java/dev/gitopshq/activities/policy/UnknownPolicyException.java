package dev.gitopshq.activities.policy;

/** The organization has no policy of that name (or no such version of it). */
public class UnknownPolicyException extends RuntimeException {
  public UnknownPolicyException(String message) {
    super(message, null, false, false);
  }
}
