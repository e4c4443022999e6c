package dev.gitopshq.workflows.governance;

/**
 * An event for the notification webhook.
 *
 * @param event approval.requested, break_glass.used, command.failed, agent.disconnected
 * @param eventId idempotency key: the receiver may see a retried delivery twice and dedupe on it
 */
public record Notification(
    String orgId,
    String eventId,
    String event,
    String subjectId,
    String clusterId,
    String summary) {}
