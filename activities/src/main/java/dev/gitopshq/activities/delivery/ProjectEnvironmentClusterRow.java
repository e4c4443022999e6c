package dev.gitopshq.activities.delivery;

import java.util.Map;
import java.util.UUID;

/**
 * A cluster a project environment delivers to.
 *
 * @param overrides JSON object of cluster-specific values ({@link #overrideMap()})
 */
public record ProjectEnvironmentClusterRow(
    UUID orgId,
    UUID projectId,
    UUID environmentId,
    UUID clusterId,
    String cluster,
    String overrides,
    String deliveryMode) {
  public Map<String, Object> overrideMap() {
    return DeliveryJson.object(overrides);
  }
}
