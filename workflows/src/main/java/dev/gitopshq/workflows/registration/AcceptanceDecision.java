package dev.gitopshq.workflows.registration;

/**
 * Signalled by the hub after an organization admin accepted or rejected a cluster whose agent
 * waited for it; the decision is already committed in PostgreSQL (the store is the authority, this
 * workflow its durable record).
 *
 * @param accepted true for accepted, false for rejected
 * @param decidedBy the admin's display name, for the workflow's history
 */
public record AcceptanceDecision(boolean accepted, String decidedBy) {}
