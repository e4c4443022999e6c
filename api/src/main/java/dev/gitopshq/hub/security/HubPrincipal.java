package dev.gitopshq.hub.security;

import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.identity.Role;
import java.util.Set;
import java.util.UUID;

/**
 * The authenticated caller of a REST request.
 *
 * @param role the member's role; null for a service account
 * @param permissions what this caller may do (the role's permissions, or the token's scopes)
 * @param operatorOrg whether the caller's organization is the operator organization
 */
public record HubPrincipal(
    UUID orgId,
    UUID tokenId,
    UUID memberId,
    UUID serviceAccountId,
    String name,
    Role role,
    Set<Permission> permissions,
    boolean operatorOrg) {

  public boolean isMember() {
    return memberId != null;
  }

  /** The same caller with another role (e.g. as the database says it is now). */
  public HubPrincipal withRole(Role newRole) {
    return new HubPrincipal(
        orgId, tokenId, memberId, serviceAccountId, name, newRole, permissions, operatorOrg);
  }

  /** The same caller with other permissions (e.g. narrowed to a grant's). */
  public HubPrincipal withPermissions(Set<Permission> newPermissions) {
    return new HubPrincipal(
        orgId, tokenId, memberId, serviceAccountId, name, role, newPermissions, operatorOrg);
  }

  public boolean can(Permission permission) {
    return permissions.contains(permission);
  }

  /** The caller as the audit log records it. */
  public Actor actor() {
    return isMember()
        ? new Actor("member", memberId.toString(), name)
        : new Actor("service_account", serviceAccountId.toString(), name);
  }

  /** The id stored in "created by" columns. */
  public String id() {
    return isMember() ? memberId.toString() : serviceAccountId.toString();
  }
}
