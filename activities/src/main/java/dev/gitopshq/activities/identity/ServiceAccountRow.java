package dev.gitopshq.activities.identity;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.Stream;

/** A machine identity for CI/CD automation; its tokens carry a subset of {@link #scopes()}. */
public record ServiceAccountRow(
    UUID id,
    UUID orgId,
    String name,
    String description,
    List<String> scopes,
    UUID createdBy,
    Instant createdAt,
    UUID ownerMemberId,
    Instant disabledAt) {

  /**
   * The members who stand behind the account: its creator and its owner. None of them may approve a
   * request the account makes.
   */
  public List<String> behind() {
    return Stream.of(createdBy, ownerMemberId)
        .filter(Objects::nonNull)
        .map(UUID::toString)
        .distinct()
        .toList();
  }
}
