/**
 * Pod log streaming ({@code GET /api/v2/clusters/{id}/logs}, capability {@code diagnostics.read}):
 * sessions that ride on the agent's Connect stream with credit-based flow control, their limits,
 * and their audit entries.
 */
package dev.gitopshq.hub.logs;
