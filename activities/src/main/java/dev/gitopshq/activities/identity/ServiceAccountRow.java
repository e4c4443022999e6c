package dev.gitopshq.activities.identity;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A machine identity for CI/CD automation; its tokens carry a subset of {@link #scopes()}. {@code
 * createdBy} is the member who created it, {@code createdByAccount} the service account that did
 * (one of the two is set; an account made by an account gets that account's owner as its own). Who
 * stands behind its requests for four eyes: {@link ServiceAccountMapper#behind(UUID, UUID)}.
 */
public record ServiceAccountRow(
    UUID id,
    UUID orgId,
    String name,
    String description,
    List<String> scopes,
    UUID createdBy,
    Instant createdAt,
    UUID ownerMemberId,
    Instant disabledAt,
    UUID createdByAccount) {}
