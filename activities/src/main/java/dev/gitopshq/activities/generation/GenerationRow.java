package dev.gitopshq.activities.generation;

import java.time.Instant;
import java.util.UUID;

/**
 * One delivery generation of a project revision (table generations).
 *
 * @param renderedUnits how many units the generation renders; null when planned before fingerprints
 * @param reusedUnits how many units took an earlier generation's tree instead; null likewise
 */
public record GenerationRow(
    UUID id,
    UUID orgId,
    UUID projectId,
    long revision,
    String configCommit,
    String status,
    int units,
    int batches,
    int changedPaths,
    String commit,
    String trigger,
    String actor,
    String detail,
    Instant startedAt,
    Instant finishedAt,
    Integer renderedUnits,
    Integer reusedUnits) {}
