package dev.gitopshq.activities.release;

import java.util.List;
import java.util.UUID;

/** A direct-mode cluster of an environment of a project, with what its agent announced. */
public record DirectTargetRow(
    UUID environmentId,
    String environment,
    int position,
    UUID clusterId,
    String cluster,
    List<String> capabilities) {}
