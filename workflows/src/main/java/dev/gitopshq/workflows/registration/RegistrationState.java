package dev.gitopshq.workflows.registration;

/** Where a registration token stands. */
public enum RegistrationState {
  /** Issued and waiting for the agent. */
  WAITING,
  /** Consumed by a successful {@code Register}. */
  REGISTERED,
  /** Replaced by a newer join token before it was used. */
  SUPERSEDED,
  /** Its hour ran out before it was used. */
  EXPIRED,
  /** The request that issued it was rolled back; there is nothing to follow. */
  ABANDONED
}
