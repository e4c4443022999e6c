package dev.gitopshq.activities.delivery;

import java.time.Instant;
import java.util.UUID;

/**
 * A project, without its webhook secret (read with {@link ProjectMapper#webhookSecret}).
 *
 * @param configRevision counts configuration changes, each a commit on main
 * @param generatedRevision the newest revision whose delivery has been generated
 * @param hasWebhookSecret whether an image-update webhook secret is set
 */
public record ProjectRow(
    UUID id,
    UUID orgId,
    String name,
    String description,
    long configRevision,
    long generatedRevision,
    boolean hasWebhookSecret,
    String createdBy,
    Instant createdAt,
    Instant updatedAt) {}
