package dev.gitopshq.activities.policy;

/**
 * OPA answered something the hub cannot use. Subclasses say whether retrying can help: {@link
 * OpaUnavailableException} (yes), {@link PolicyCompileException} and {@link
 * PolicyEvaluationException} (no, the policy must change). Messages never contain input documents
 * or credentials.
 */
public class OpaException extends RuntimeException {
  public OpaException(String message) {
    super(message);
  }

  public OpaException(String message, Throwable cause) {
    super(message, cause);
  }
}
