package dev.gitopshq.hub.delivery;

import java.util.UUID;

/**
 * Told after a change of a project's configuration committed a new revision (after its
 * transaction), e.g. to re-wire the runtime adapters of the clusters it binds. Must not throw.
 */
@FunctionalInterface
public interface ConfigChangeListener {
  void changed(UUID orgId, UUID projectId, long revision);
}
