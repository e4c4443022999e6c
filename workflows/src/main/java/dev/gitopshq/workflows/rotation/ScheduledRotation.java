package dev.gitopshq.workflows.rotation;

/** What a cluster's rotation schedule starts every interval. */
public record ScheduledRotation(
    String orgId, String clusterId, long ackTimeoutSeconds, long graceSeconds) {

  /** The Temporal Schedule of a cluster's automatic rotation. */
  public static String scheduleId(String clusterId) {
    return "token-rotation-schedule-" + clusterId;
  }
}
