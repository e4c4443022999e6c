package dev.gitopshq.agent.identity;

import java.util.Optional;

/**
 * Persists the agent's identity across restarts.
 *
 * <p>A registration token works once, so losing the identity means asking an operator for a new
 * join token; implementations therefore write atomically, and report failures instead of swallowing
 * them. Messages of the exceptions they throw never contain the agent token.
 */
public interface IdentityStore {

  /**
   * Reads the stored identity.
   *
   * @return the identity, or empty if none has been saved
   * @throws IdentityStoreException if the store cannot be read or holds something unreadable
   */
  Optional<AgentIdentity> load();

  /**
   * Saves the identity, replacing any previous one, so that a later {@link #load()} returns it even
   * after a crash.
   *
   * @throws IdentityStoreException if the identity could not be saved
   */
  void save(AgentIdentity identity);

  /**
   * Removes the stored identity, so the next start registers again.
   *
   * @throws IdentityStoreException if the identity could not be removed
   */
  void clear();

  /** Where the identity lives, for log lines, e.g. {@code file /var/lib/gitopshq/agent.json}. */
  String location();
}
