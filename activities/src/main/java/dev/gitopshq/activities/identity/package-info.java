/**
 * Who may do what: member roles, the permissions they imply, and the scopes a service-account token
 * may carry. Roles and scopes both resolve to {@link dev.gitopshq.activities.identity.Permission}s,
 * which is what the REST layer checks.
 */
package dev.gitopshq.activities.identity;
