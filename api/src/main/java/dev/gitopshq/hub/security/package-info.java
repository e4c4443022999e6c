/**
 * REST authentication and authorization: every request outside {@code /actuator/health} carries
 * {@code Authorization: Bearer <token>} (a member's {@code ghqp_} or a service account's {@code
 * ghqs_} token, or the {@code ghqo_} session of an SSO sign-in, see {@link dev.gitopshq.hub.sso}).
 * A missing or bad token is 401 with one identical body; a permission the caller lacks is 403
 * naming it.
 */
package dev.gitopshq.hub.security;
