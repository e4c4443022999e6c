package dev.gitopshq.activities.registration;

import java.util.List;
import java.util.UUID;

/**
 * The result of a successful {@code Register}: the consumed registration token, and the agent token
 * issued in exchange. {@link #agentToken()} is handed to the agent once; {@link #toString()} leaves
 * it out.
 *
 * @param revokedAgentTokens agent tokens of an earlier install of this cluster, now revoked
 * @param acceptanceRequired whether the agent waits for an admin's acceptance before the hub uses
 *     it
 */
public record AgentRegistration(
    UUID orgId,
    UUID clusterId,
    String clusterName,
    UUID registrationTokenId,
    UUID agentTokenId,
    String agentToken,
    List<UUID> revokedAgentTokens,
    boolean acceptanceRequired) {
  @Override
  public String toString() {
    return "AgentRegistration[clusterId=" + clusterId + ", agentTokenId=" + agentTokenId + "]";
  }
}
