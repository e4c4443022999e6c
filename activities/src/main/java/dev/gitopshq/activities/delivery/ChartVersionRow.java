package dev.gitopshq.activities.delivery;

import java.time.Instant;
import java.util.UUID;

/**
 * An immutable chart version, without its archive (read with {@link ChartMapper#archive}).
 *
 * @param digest SHA-256 of the archive, lowercase hex
 */
public record ChartVersionRow(
    UUID orgId,
    UUID chartId,
    String chart,
    String version,
    String appVersion,
    String description,
    String digest,
    int sizeBytes,
    String uploadedBy,
    Instant createdAt) {}
