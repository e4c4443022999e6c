package dev.gitopshq.agent;

import dev.gitopshq.agent.config.ExitCodes;
import dev.gitopshq.agent.identity.AgentIdentity;
import dev.gitopshq.agent.identity.ClientCredential;
import dev.gitopshq.agent.identity.IdentityStore;
import dev.gitopshq.agent.identity.IdentityStoreException;
import dev.gitopshq.agent.link.LinkFailure;
import dev.gitopshq.agent.link.Redactor;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the agent's identity in its store: loads it at start and saves a new one after registration
 * or rotation, each retried a few times because a Secret store waits on a Kubernetes API that may
 * still be starting. Failures name the store and never the token.
 */
final class IdentityKeeper {

  private static final Logger log = LoggerFactory.getLogger(IdentityKeeper.class);
  static final int ATTEMPTS = 5;

  private final IdentityStore store;
  private final Duration retryDelay;

  /**
   * @param retryDelay the pause after the first failure; the n-th failure waits n times as long
   */
  IdentityKeeper(IdentityStore store, Duration retryDelay) {
    this.store = store;
    this.retryDelay = retryDelay;
  }

  /** Where the identity is kept, e.g. {@code file /tmp/gitopshq-agent-token}. */
  String location() {
    return store.location();
  }

  /**
   * The stored identity, if any.
   *
   * @throws LinkFailure with {@link ExitCodes#IDENTITY_STORE} once every attempt failed
   */
  Optional<AgentIdentity> load() throws LinkFailure {
    try {
      return retrying("load", store::load);
    } catch (IdentityStoreException e) {
      throw new LinkFailure(
          ExitCodes.IDENTITY_STORE,
          "giving up: cannot load the agent identity from "
              + store.location()
              + ": "
              + Redactor.redact(e.getMessage()));
    }
  }

  /**
   * Saves the identity the hub has just issued on registration. The registration token is consumed
   * by now, so failing here is expensive for the operator, and the message says what to do.
   *
   * @throws LinkFailure with {@link ExitCodes#IDENTITY_STORE} once every attempt failed
   */
  void saveRegistered(AgentIdentity identity) throws LinkFailure {
    try {
      save(identity);
    } catch (IdentityStoreException e) {
      throw new LinkFailure(
          ExitCodes.IDENTITY_STORE,
          "REGISTRATION LOST: the hub registered cluster "
              + identity.clusterId()
              + " but its agent identity could not be saved to "
              + store.location()
              + " ("
              + Redactor.redact(e.getMessage())
              + "). The registration"
              + " token is now consumed: fix the identity store, then create a new join token with"
              + " POST /api/v2/clusters/"
              + identity.clusterId()
              + "/join-token and restart the agent"
              + " with it.");
    }
  }

  /**
   * Replaces the stored identity's token, keeping its cluster and hub.
   *
   * @return the saved identity
   * @throws IdentityStoreException if there is no stored identity, or every attempt to read or save
   *     failed
   */
  AgentIdentity rotate(String agentToken, Instant issuedAt) {
    AgentIdentity current =
        retrying("load", store::load)
            .orElseThrow(() -> new IdentityStoreException("no stored identity to rotate"));
    AgentIdentity next =
        new AgentIdentity(
            current.clusterId(), agentToken, current.hubAddress(), issuedAt, current.certificate());
    save(next);
    return next;
  }

  /**
   * Replaces the stored identity's client certificate, keeping its token.
   *
   * @return the saved identity
   * @throws IdentityStoreException if there is no stored identity, or every attempt to read or save
   *     failed
   */
  AgentIdentity renewCertificate(ClientCredential certificate) {
    AgentIdentity next =
        retrying("load", store::load)
            .orElseThrow(() -> new IdentityStoreException("no stored identity to renew"))
            .withCertificate(certificate);
    save(next);
    return next;
  }

  private void save(AgentIdentity identity) {
    retrying(
        "save",
        () -> {
          store.save(identity);
          return null;
        });
    log.info("saved the agent identity of cluster {} to {}", identity.clusterId(), location());
  }

  private <T> T retrying(String what, Supplier<T> action) {
    IdentityStoreException last = null;
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        return action.get();
      } catch (IdentityStoreException e) {
        last = e;
        log.warn(
            "cannot {} the agent identity (attempt {} of {}): {}",
            what,
            attempt,
            ATTEMPTS,
            Redactor.redact(e.getMessage()));
        if (attempt < ATTEMPTS && !pause(attempt)) {
          break;
        }
      }
    }
    throw last;
  }

  /** Waits before the next attempt; false if interrupted, which the agent only does to stop. */
  private boolean pause(int attempt) {
    try {
      Thread.sleep(retryDelay.toMillis() * attempt);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
