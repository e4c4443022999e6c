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
 * @param certificate the client certificate for mutual TLS; null when the hub issued none
 */
public record AgentIdentity(
    String clusterId,
    String agentToken,
    String hubAddress,
    Instant registeredAt,
    ClientCredential certificate) {

  /** An identity without a client certificate. */
  public AgentIdentity(String clusterId, String agentToken, String hubAddress, Instant at) {
    this(clusterId, agentToken, hubAddress, at, null);
  }

  /** This identity with another client certificate. */
  public AgentIdentity withCertificate(ClientCredential next) {
    return new AgentIdentity(clusterId, agentToken, hubAddress, registeredAt, next);
  }

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
        + ", certificate="
        + (certificate == null ? "none" : certificate.serial())
        + ", agentToken=<redacted>]";
  }
}
