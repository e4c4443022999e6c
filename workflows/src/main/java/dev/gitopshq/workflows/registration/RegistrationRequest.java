package dev.gitopshq.workflows.registration;

/**
 * What the hub issued: ids and the expiry instant only. The token's plaintext never reaches
 * Temporal; the hub stores its SHA-256 hash and returns the plaintext once to the caller.
 *
 * @param orgId the organization that owns the cluster
 * @param clusterId the cluster the token registers
 * @param tokenId the registration token's row id
 * @param expiresAtEpochMillis when the token stops working (issued + 1 hour)
 */
public record RegistrationRequest(
    String orgId, String clusterId, String tokenId, long expiresAtEpochMillis) {}
