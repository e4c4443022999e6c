package dev.gitopshq.activities.store;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** A machine identity for CI/CD automation; its tokens carry a subset of {@link #scopes()}. */
public record ServiceAccountRow(
    UUID id,
    UUID orgId,
    String name,
    String description,
    List<String> scopes,
    UUID createdBy,
    Instant createdAt) {}
