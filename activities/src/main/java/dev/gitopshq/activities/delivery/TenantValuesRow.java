package dev.gitopshq.activities.delivery;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/** Values of one workload for one tenant in one environment, with the names. */
public record TenantValuesRow(
    UUID orgId,
    UUID projectId,
    UUID workloadId,
    String workload,
    UUID tenantId,
    String tenant,
    UUID environmentId,
    String environment,
    String values,
    String updatedBy,
    Instant updatedAt) {
  public Map<String, Object> valueMap() {
    return DeliveryJson.object(values);
  }
}
