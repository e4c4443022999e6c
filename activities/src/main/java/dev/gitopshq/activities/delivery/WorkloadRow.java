package dev.gitopshq.activities.delivery;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * A workload (service): a chart version and default values.
 *
 * @param chart the chart's name
 * @param chartDigest the chart version's SHA-256
 * @param values JSON object ({@link #valueMap()})
 */
public record WorkloadRow(
    UUID id,
    UUID orgId,
    UUID projectId,
    String name,
    UUID chartId,
    String chart,
    String chartVersion,
    String chartDigest,
    String values,
    String imageTagPath,
    Instant createdAt,
    Instant updatedAt) {
  public Map<String, Object> valueMap() {
    return DeliveryJson.object(values);
  }
}
