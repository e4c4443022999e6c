package dev.gitopshq.activities.credential;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A credential as stored: {@code ciphertext} is the values sealed with the hub's key ({@link
 * dev.gitopshq.activities.crypto.SecretBox}, context {@link #sealContext}); {@code keyNames} are
 * the Secret's keys, never their values.
 */
public record CredentialRow(
    UUID id,
    UUID orgId,
    String name,
    String type,
    String description,
    byte[] ciphertext,
    String keyId,
    long version,
    List<String> keyNames,
    String fingerprint,
    String createdBy,
    Instant createdAt,
    Instant updatedAt) {

  /**
   * The associated data the values are sealed under: the organization and the credential id, so a
   * sealed value copied to another row or organization does not open.
   */
  public static String sealContext(UUID orgId, UUID credentialId) {
    return "credential:" + orgId + ":" + credentialId;
  }

  /** Leaves the sealed bytes out. */
  @Override
  public String toString() {
    return "CredentialRow[id="
        + id
        + ", name="
        + name
        + ", type="
        + type
        + ", version="
        + version
        + "]";
  }
}
