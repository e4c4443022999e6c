package dev.gitopshq.activities.identity;

import java.util.Arrays;
import java.util.Optional;

/**
 * An action on a kind of resource. A service-account token's scopes are permissions by their
 * {@link #scope()} names, e.g. {@code clusters:write}.
 */
public enum Permission {
  CLUSTERS_READ("clusters:read"),
  CLUSTERS_WRITE("clusters:write"),
  MEMBERS_READ("members:read"),
  MEMBERS_WRITE("members:write"),
  SERVICE_ACCOUNTS_READ("service-accounts:read"),
  SERVICE_ACCOUNTS_WRITE("service-accounts:write"),
  AUDIT_READ("audit:read"),
  FEATURES_READ("features:read"),
  POLICIES_READ("policies:read"),
  POLICIES_WRITE("policies:write"),
  COMMANDS_READ("commands:read"),
  COMMANDS_CREATE("commands:create"),
  APPROVALS_READ("approvals:read");

  private final String scope;

  Permission(String scope) {
    this.scope = scope;
  }

  /** The scope name used in service-account tokens and in 403 messages. */
  public String scope() {
    return scope;
  }

  /** The permission with this scope name, if any. */
  public static Optional<Permission> fromScope(String scope) {
    return Arrays.stream(values()).filter(p -> p.scope.equals(scope)).findFirst();
  }
}
