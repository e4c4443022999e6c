package dev.gitopshq.activities.identity;

import java.util.Arrays;
import java.util.Optional;

/**
 * An action on a kind of resource. A service-account token's scopes are permissions by their {@link
 * #scope()} names, e.g. {@code clusters:write}.
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
  APPROVALS_READ("approvals:read"),
  /**
   * Organization-level delivery resources: environments, tenants, charts, bundles, bases, org
   * variables, freeze windows.
   */
  ORG_WRITE("org:write"),
  PROJECTS_READ("projects:read"),
  /** A project's configuration: environments, tenants, workloads, values, variables, bindings. */
  PROJECTS_WRITE("projects:write"),
  /** Create and delete projects, issue deploy tokens and webhook secrets. */
  PROJECTS_ADMIN("projects:admin"),
  RELEASES_READ("releases:read"),
  /** Create releases, promote them and request rollbacks. */
  RELEASES_CREATE("releases:create"),
  /**
   * Create organizations and see every organization of the instance. Only the owners of the
   * operator organization (the one the bootstrap created) hold it, and service accounts they give
   * it to; no role grants it elsewhere.
   */
  ORGS_WRITE("orgs:write"),
  /**
   * Create, change, delete and assign the organization's synced credentials, and read their
   * metadata (never their values). Viewers see only the per-cluster sync status (clusters:read).
   */
  CREDENTIALS_WRITE("credentials:write");

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
