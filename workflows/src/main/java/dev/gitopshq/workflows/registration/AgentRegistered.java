package dev.gitopshq.workflows.registration;

import java.util.List;

/**
 * Signalled by the gateway after it consumed the registration token in PostgreSQL.
 *
 * @param agentTokenId the id of the agent token issued in exchange (its value is never here)
 * @param agentVersion the version the agent reported
 * @param capabilities the capabilities the agent reported
 * @param acceptanceRequired whether the agent waits for an admin's acceptance (hub acceptance);
 *     false in signals recorded before this field
 */
public record AgentRegistered(
    String agentTokenId,
    String agentVersion,
    List<String> capabilities,
    boolean acceptanceRequired) {
  public AgentRegistered {
    capabilities = capabilities == null ? List.of() : List.copyOf(capabilities);
  }

  /** A registration that needs no acceptance. */
  public AgentRegistered(String agentTokenId, String agentVersion, List<String> capabilities) {
    this(agentTokenId, agentVersion, capabilities, false);
  }
}
