package dev.gitopshq.workflows.registration;

/**
 * How a registration token ended.
 *
 * @param state the final state
 * @param agentTokenId the agent token issued in exchange, when {@code state} is REGISTERED and the
 *     gateway's signal arrived; otherwise null
 */
public record RegistrationOutcome(RegistrationState state, String agentTokenId) {}
