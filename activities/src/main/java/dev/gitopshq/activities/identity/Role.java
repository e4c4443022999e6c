package dev.gitopshq.activities.identity;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * A member's role in the organization. Each role includes everything the roles below it may do:
 * viewers read, members also operate, admins also manage clusters and people, owners also manage
 * owners.
 */
public enum Role {
  VIEWER(
      EnumSet.of(
          Permission.CLUSTERS_READ,
          Permission.MEMBERS_READ,
          Permission.SERVICE_ACCOUNTS_READ,
          Permission.FEATURES_READ,
          Permission.POLICIES_READ,
          Permission.COMMANDS_READ,
          Permission.PROJECTS_READ,
          Permission.RELEASES_READ)),
  MEMBER(
      EnumSet.of(
          Permission.COMMANDS_CREATE,
          Permission.APPROVALS_READ,
          Permission.PROJECTS_WRITE,
          Permission.RELEASES_CREATE)),
  ADMIN(
      EnumSet.of(
          Permission.CLUSTERS_WRITE,
          Permission.MEMBERS_WRITE,
          Permission.SERVICE_ACCOUNTS_WRITE,
          Permission.AUDIT_READ,
          Permission.POLICIES_WRITE,
          Permission.ORG_WRITE,
          Permission.PROJECTS_ADMIN,
          Permission.CREDENTIALS_WRITE)),
  OWNER(EnumSet.noneOf(Permission.class));

  private final Set<Permission> own;

  Role(Set<Permission> own) {
    this.own = own;
  }

  /** Everything this role may do, including what every lower role may do. */
  public Set<Permission> permissions() {
    EnumSet<Permission> all = EnumSet.noneOf(Permission.class);
    for (Role r : values()) {
      if (r.ordinal() <= ordinal()) {
        all.addAll(r.own);
      }
    }
    return all;
  }

  /**
   * Everything this role may do in an organization: {@link #permissions()}, and for owners of the
   * operator organization also {@link Permission#ORGS_WRITE}.
   */
  public Set<Permission> permissionsIn(boolean operatorOrg) {
    Set<Permission> all = EnumSet.copyOf(permissions());
    if (operatorOrg && this == OWNER) {
      all.add(Permission.ORGS_WRITE);
    }
    return all;
  }

  /** True when this role is at least {@code other}. */
  public boolean atLeast(Role other) {
    return ordinal() >= other.ordinal();
  }

  /** The role's name as stored and shown: lower case. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses a role name as users write it ({@code owner}, {@code admin}, ...). */
  public static Optional<Role> parse(String name) {
    if (name == null) {
      return Optional.empty();
    }
    for (Role r : values()) {
      if (r.wireName().equals(name)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }
}
