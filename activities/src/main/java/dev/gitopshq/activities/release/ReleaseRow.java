package dev.gitopshq.activities.release;

import java.time.Instant;
import java.util.UUID;

/**
 * A release of a project.
 *
 * @param number counts the project's releases from 1, rollbacks included
 * @param kind standard (the configuration at a revision) or rollback (restores an earlier release's
 *     files for a scope)
 * @param configRevision the configuration revision a standard release delivers; for a rollback, the
 *     rolled-back release's
 * @param sourceCommit the commit on main whose {@code rendered/} tree the release delivers, once
 *     known (a rollback carries the rolled-back release's)
 * @param rollbackOf the release a rollback restores
 * @param scope a rollback's scope as JSON text: {@code "all"} or {@code [{environment?, tenant?,
 *     service?}]} ({@link RollbackScope})
 */
public record ReleaseRow(
    UUID id,
    UUID orgId,
    UUID projectId,
    int number,
    String kind,
    String description,
    long configRevision,
    String sourceCommit,
    UUID rollbackOf,
    String scope,
    String requestedBy,
    String requesterName,
    Instant createdAt) {
  public static final String STANDARD = "standard";
  public static final String ROLLBACK = "rollback";

  public boolean isRollback() {
    return ROLLBACK.equals(kind);
  }
}
