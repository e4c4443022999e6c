package dev.gitopshq.hub.security;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.web.ApiException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/** The current caller, and permission checks that fail with a 403 naming what was missing. */
public final class Authz {
  private Authz() {}

  /** The authenticated caller; the filter chain guarantees one on /api/**. */
  public static HubPrincipal caller() {
    Authentication auth = SecurityContextHolder.getContext().getAuthentication();
    if (auth == null || !(auth.getPrincipal() instanceof HubPrincipal p)) {
      throw ApiException.unauthorized();
    }
    return p;
  }

  /** The caller, who must hold {@code permission}. */
  public static HubPrincipal require(Permission permission) {
    HubPrincipal p = caller();
    if (!p.can(permission)) {
      throw ApiException.forbidden(
          "this action requires the '" + permission.scope() + "' permission");
    }
    return p;
  }
}
