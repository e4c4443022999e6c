package dev.gitopshq.activities.cluster;

import java.util.UUID;

/**
 * Keeps the project environments that bind clusters by label selector in step with a cluster whose
 * registration or labels changed. The hub implements it (a change of projects' configuration is the
 * hub's); the registration activities call it once an agent has registered.
 */
public interface ClusterMemberships {
  /** Nothing joins: for stores and tests without projects. */
  ClusterMemberships NONE = (orgId, clusterId) -> {};

  /**
   * Binds the registered cluster to every environment of the organization whose selector matches
   * it, one configuration commit per project that changed, naming the registration as the cause.
   * Idempotent.
   */
  void registered(UUID orgId, UUID clusterId);
}
