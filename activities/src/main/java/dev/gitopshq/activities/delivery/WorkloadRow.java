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
    Instant updatedAt,
    String kindScopes) {
  /** The scopes the row declares for kinds the hub does not know, by {@code group/Kind}. */
  public Map<String, String> kindScopeMap() {
    return kindScopes == null ? Map.of() : DeliveryJson.files(kindScopes);
  }

  public Map<String, Object> valueMap() {
    return DeliveryJson.object(values);
  }
}
