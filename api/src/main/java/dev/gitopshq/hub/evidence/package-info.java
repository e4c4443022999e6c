/**
 * Signed evidence documents ({@code GET /api/v2/commands/{id}/evidence}, {@code GET
 * /api/v2/projects/{id}/releases/{n}/evidence}) and the hub's evidence keys ({@code GET
 * /api/v2/evidence/keys}). The document format, canonical form and verifier live in the {@code
 * evidence} module.
 */
package dev.gitopshq.hub.evidence;
