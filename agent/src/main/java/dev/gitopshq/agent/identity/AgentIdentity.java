package dev.gitopshq.agent.identity;

import java.time.Instant;
import java.util.Objects;

/**
 * What the agent learned from registering: the hub's id of its cluster and its long-lived agent
 * token, plus where and when it registered.
 *
 * <p>The agent token is a credential. {@link #toString()} leaves it out, so an identity can be
 * logged or put into an exception message safely.
 *
 * @param clusterId the hub's id of the cluster (a UUID)
 * @param agentToken the agent token, {@code ghqa_} followed by 64 hex characters
 * @param hubAddress the hub address the agent registered with
 * @param registeredAt when the hub accepted the registration
 */
public record AgentIdentity(
    String clusterId, String agentToken, String hubAddress, Instant registeredAt) {

  /** Rejects missing or blank values, which would make a useless identity. */
  public AgentIdentity {
    requireText(clusterId, "clusterId");
    requireText(agentToken, "agentToken");
    requireText(hubAddress, "hubAddress");
    Objects.requireNonNull(registeredAt, "registeredAt");
  }

  private static void requireText(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be empty");
    }
  }

  /** Describes the identity without the agent token. */
  @Override
  public String toString() {
    return "AgentIdentity[clusterId="
        + clusterId
        + ", hubAddress="
        + hubAddress
        + ", registeredAt="
        + registeredAt
        + ", agentToken=<redacted>]";
  }
}
