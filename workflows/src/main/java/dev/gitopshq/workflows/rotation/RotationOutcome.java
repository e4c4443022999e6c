package dev.gitopshq.workflows.rotation;

/**
 * How a rotation ended.
 *
 * @param state rotated, not_acknowledged, refused (the agent could not persist it) or
 *     agent_not_connected
 */
public record RotationOutcome(String state, String newTokenId, String detail) {
  public static final String ROTATED = "rotated";
  public static final String NOT_ACKNOWLEDGED = "not_acknowledged";
  public static final String REFUSED = "refused";
  public static final String AGENT_NOT_CONNECTED = "agent_not_connected";
}
