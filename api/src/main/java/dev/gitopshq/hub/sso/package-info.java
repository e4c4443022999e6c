/**
 * Single sign-on through OpenID Connect. Browsers sign in with the authorization code flow and
 * PKCE, run by the hub ({@code /api/v2/auth/oidc/login} and {@code /callback}); a command line
 * signs in with the device flow at the provider and exchanges the provider's access token for a hub
 * session ({@code POST /api/v2/auth/oidc/token}). Provider groups map to roles and teams by
 * configuration ({@link dev.gitopshq.hub.sso.OidcProperties}), every mapping applied is audited,
 * and a sign-in yields a short-lived {@code ghqo_} session token stored as a hash.
 */
package dev.gitopshq.hub.sso;
