package dev.gitopshq.activities.policy;

/**
 * OPA holds modules the hub does not manage (planted by someone holding OPA's token) and the hub
 * could not remove them: they might change a decision while it still names the hub's version and
 * text hash, so no decision is taken. Like any outage of OPA, callers fail closed and may retry.
 */
public class UnmanagedModulesException extends OpaUnavailableException {
  public UnmanagedModulesException(String message) {
    super(message);
  }
}
