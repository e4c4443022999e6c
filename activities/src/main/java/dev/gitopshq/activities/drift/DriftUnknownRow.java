package dev.gitopshq.activities.drift;

import java.util.UUID;

/**
 * An object a check did not compare: its sync status is unknown, never in sync (as Argo CD shows a
 * resource {@code Unknown} with its comparison error).
 *
 * @param sourcePath the file of {@code deploy/<environment>} the object comes from
 * @param reason why it was not compared, for people (bounded, control characters escaped)
 */
public record DriftUnknownRow(
    UUID orgId,
    UUID checkId,
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
    String reason) {

  /** The object's identity within the cluster. */
  public String key() {
    return DesiredObject.key(apiGroup, kind, namespace, name);
  }
}
