package dev.gitopshq.activities.delivery;

import java.util.Map;
import java.util.UUID;

/**
 * A cluster a project environment delivers to.
 *
 * @param overrides JSON object of cluster-specific values ({@link #overrideMap()})
 * @param byName the environment names the cluster
 * @param bySelector the environment's cluster selector matches the cluster
 */
public record ProjectEnvironmentClusterRow(
    UUID orgId,
    UUID projectId,
    UUID environmentId,
    UUID clusterId,
    String cluster,
    String overrides,
    String deliveryMode,
    boolean byName,
    boolean bySelector) {
  public Map<String, Object> overrideMap() {
    return DeliveryJson.object(overrides);
  }
}
