package dev.gitopshq.activities.delivery;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * A manifest bundle or a Kustomize base ({@link SourceKind}).
 *
 * @param files JSON object, relative path to text ({@link #fileMap()})
 * @param revision counts the changes of its files
 */
public record SourceRow(
    UUID id,
    UUID orgId,
    String name,
    String description,
    String files,
    int revision,
    String updatedBy,
    Instant createdAt,
    Instant updatedAt) {
  public Map<String, String> fileMap() {
    return DeliveryJson.files(files);
  }
}
