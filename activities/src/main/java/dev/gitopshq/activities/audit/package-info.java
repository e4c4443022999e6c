/**
 * The append-only, hash-chained audit log. Entries are written in the same transaction as the
 * change they describe; {@link dev.gitopshq.activities.audit.AuditLog#verify} recomputes the chain.
 */
package dev.gitopshq.activities.audit;
