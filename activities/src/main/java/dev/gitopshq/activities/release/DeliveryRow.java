package dev.gitopshq.activities.release;

import java.time.Instant;
import java.util.UUID;

/**
 * What one tenant-environment of a project last had generated and last had deployed.
 *
 * @param generatedCommit the commit on main of the last generation that changed its output
 * @param deployedCommit the commit on {@code deploy/<environment>} that last wrote its files
 * @param deployedRelease the release that commit delivered
 */
public record DeliveryRow(
    UUID projectId,
    UUID environmentId,
    String environment,
    int position,
    UUID tenantId,
    String tenant,
    String generatedCommit,
    Instant generatedAt,
    String deployedCommit,
    UUID deployedRelease,
    Integer deployedReleaseNumber,
    Instant deployedAt) {}
