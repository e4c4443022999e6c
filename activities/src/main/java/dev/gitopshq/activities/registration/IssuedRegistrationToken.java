package dev.gitopshq.activities.registration;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A registration token just issued. {@link #token()} is the only copy of the plaintext: it goes to
 * the caller once and nowhere else ({@link #toString()} leaves it out).
 *
 * @param superseded ids of earlier unused tokens this one replaced
 */
public record IssuedRegistrationToken(
    UUID tokenId, String token, Instant expiresAt, List<UUID> superseded) {
  @Override
  public String toString() {
    return "IssuedRegistrationToken[tokenId=" + tokenId + ", expiresAt=" + expiresAt + "]";
  }
}
