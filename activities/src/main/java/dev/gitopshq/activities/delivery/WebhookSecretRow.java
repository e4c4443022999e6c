package dev.gitopshq.activities.delivery;

import java.util.UUID;

/** A project's encrypted image-update webhook secret (null when none is set). */
public record WebhookSecretRow(UUID orgId, UUID projectId, String project, byte[] webhookSecret) {}
