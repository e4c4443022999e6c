/**
 * Organizations ({@code /api/v2/orgs}) and each organization's notification settings ({@code
 * /api/v2/notifications}). Organizations are isolated tenants of one hub: every row carries its
 * {@code org_id} and every query filters by it, so another organization's object is a 404.
 */
package dev.gitopshq.hub.org;
