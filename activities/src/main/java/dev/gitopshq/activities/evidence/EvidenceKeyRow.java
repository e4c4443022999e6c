package dev.gitopshq.activities.evidence;

import java.time.Instant;

/**
 * A signing key of the hub.
 *
 * @param publicKey X.509 SubjectPublicKeyInfo DER
 * @param privateKeySealed PKCS#8 DER sealed with the hub's SecretBox; never shown
 */
public record EvidenceKeyRow(
    String id, String algorithm, byte[] publicKey, byte[] privateKeySealed, Instant createdAt) {}
