/**
 * {@code /api/v2/audit}: read the hash-chained audit log and verify its chain; export an
 * organization's workflow histories ({@code /api/v2/workflows/{id}/history}) and replay them
 * against the hub's current workflow code ({@code /api/v2/audit/replays}).
 */
package dev.gitopshq.hub.audit;
