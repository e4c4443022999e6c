package dev.gitopshq.activities.release;

import java.util.List;
import java.util.UUID;

/**
 * A deployment as the approvals inbox describes it: what would move where, and by whom; {@code
 * changes} is its stored change summary (JSON, {@link ChangeSummary#fromJson}), null before the
 * decision.
 */
public record DeploymentSubjectRow(
    UUID id,
    UUID projectId,
    String project,
    int releaseNumber,
    String releaseKind,
    String releaseDescription,
    Integer rollbackOfNumber,
    String action,
    List<String> environments,
    String requesterName,
    boolean breakGlass,
    String justification,
    String changes) {}
