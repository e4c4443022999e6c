package dev.gitopshq.workflows.registration;

/** Where a registration token stands. */
public enum RegistrationState {
  /** Issued and waiting for the agent. */
  WAITING,
  /** Consumed by a successful {@code Register}. */
  REGISTERED,
  /** Consumed, and the agent waits for an organization admin to accept or reject it. */
  PENDING_ACCEPTANCE,
  /** Consumed, and an admin accepted the agent. */
  ACCEPTED,
  /** Consumed, and an admin rejected the agent; its token is revoked. */
  REJECTED,
  /** Replaced by a newer join token before it was used. */
  SUPERSEDED,
  /** Its hour ran out before it was used. */
  EXPIRED,
  /** The request that issued it was rolled back; there is nothing to follow. */
  ABANDONED
}
