package dev.gitopshq.activities.drift;

import java.time.Instant;
import java.util.UUID;

/**
 * A drift finding as stored.
 *
 * @param differences a JSON array of {path, desired, live, severity}
 * @param desiredManifest the desired object as JSON; never returned by the API
 * @param state drifted, or missing when there is no live object
 */
public record DriftFindingRow(
    UUID id,
    UUID orgId,
    UUID clusterId,
    UUID projectId,
    String environment,
    String tenant,
    String sourcePath,
    String apiGroup,
    String apiVersion,
    String kind,
    String namespace,
    String name,
    String severity,
    String state,
    String differences,
    String desiredManifest,
    String fieldManager,
    String argoApplication,
    String method,
    Instant firstDetectedAt,
    Instant lastSeenAt,
    Instant resolvedAt,
    UUID lastCheckId,
    UUID resolvedByCheck) {

  /** The object's identity within the cluster. */
  public String key() {
    return DesiredObject.key(apiGroup, kind, namespace, name);
  }

  public boolean open() {
    return resolvedAt == null;
  }
}
