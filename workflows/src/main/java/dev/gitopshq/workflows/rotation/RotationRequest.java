package dev.gitopshq.workflows.rotation;

/**
 * A rotation to run.
 *
 * @param rotationId the idempotency key of the whole rotation
 * @param requestedBy who asked (a member's name, or "schedule")
 * @param ackTimeoutSeconds how long the agent has to persist and acknowledge the new token
 * @param graceSeconds how long the old token keeps working after the new one is active
 */
public record RotationRequest(
    String orgId,
    String clusterId,
    String rotationId,
    String requestedBy,
    long ackTimeoutSeconds,
    long graceSeconds) {

  public static String workflowId(String rotationId) {
    return "token-rotation-" + rotationId;
  }
}
