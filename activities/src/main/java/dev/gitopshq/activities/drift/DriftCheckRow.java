package dev.gitopshq.activities.drift;

import java.time.Instant;
import java.util.UUID;

/**
 * One comparison of a cluster's desired objects with the live ones.
 *
 * @param trigger deployment, interval or manual
 * @param status pending, running, completed or failed
 * @param unknown how many objects the check did not compare (never counted as in sync)
 */
public record DriftCheckRow(
    UUID id,
    UUID orgId,
    UUID clusterId,
    String trigger,
    String requestedBy,
    String status,
    Instant requestedAt,
    Instant startedAt,
    Instant finishedAt,
    int objects,
    int drifted,
    int opened,
    int resolved,
    int unknown,
    String error) {

  /** "12 objects: 1 drifted, 2 not compared" (for people; what the check found). */
  public String summary() {
    if (status.equals("pending") || status.equals("running")) {
      return "check " + status;
    }
    if (objects == 0) {
      return error == null ? "no delivered objects to compare" : "check failed: " + error;
    }
    StringBuilder b = new StringBuilder();
    b.append(objects).append(objects == 1 ? " object: " : " objects: ");
    if (unknown > 0 && unknown == objects) {
      b.append("none compared");
    } else {
      b.append(drifted).append(" drifted");
      if (unknown > 0) {
        b.append(", ").append(unknown).append(" not compared");
      } else if (drifted == 0) {
        b.append(", all in sync");
      }
    }
    if (error != null) {
      b.append(" (").append(error).append(')');
    }
    return b.toString();
  }
}
