package dev.gitopshq.hub.team;

import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.identity.GrantMapper;
import dev.gitopshq.activities.identity.GrantRow;
import dev.gitopshq.activities.identity.MemberMapper;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.identity.Role;
import dev.gitopshq.hub.security.HubPrincipal;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import org.springframework.stereotype.Service;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;

/**
 * What project or cluster a caller reaches, and with what role (docs/policies.md#teams-and-grants).
 *
 * <ul>
 *   <li>Owners and admins of the organization reach every project and cluster with their role.
 *   <li>Service accounts are governed by their token's scopes, as before: grants do not apply.
 *   <li>A member or viewer reaches a project only through a grant of one of their teams on that
 *       project or on every project, and a cluster only through a clusters grant whose selector
 *       matches the cluster's labels. Their role there is the highest such grant's role; an
 *       organization viewer stays read-only whatever the grant says. Elsewhere the object does not
 *       exist for them (404).
 * </ul>
 *
 * A member's grants are read once per request.
 */
@Service
public class Access {
  /** The permissions a project grant's role decides inside its project. */
  public static final Set<Permission> PROJECT_PERMISSIONS =
      EnumSet.of(
          Permission.PROJECTS_READ,
          Permission.PROJECTS_WRITE,
          Permission.PROJECTS_ADMIN,
          Permission.RELEASES_READ,
          Permission.RELEASES_CREATE);

  /** The permissions a clusters grant's role decides on the clusters it matches. */
  public static final Set<Permission> CLUSTER_PERMISSIONS =
      EnumSet.of(
          Permission.CLUSTERS_READ,
          Permission.CLUSTERS_WRITE,
          Permission.COMMANDS_READ,
          Permission.COMMANDS_CREATE);

  private static final String CACHE = Access.class.getName() + ".grants";

  private final GrantMapper grants;
  private final MemberMapper members;

  public Access(GrantMapper grants, MemberMapper members) {
    this.grants = grants;
    this.members = members;
  }

  /** Whether grants decide what this caller reaches (a member or viewer of the organization). */
  public static boolean governed(HubPrincipal caller) {
    return caller.isMember() && caller.role() != null && !caller.role().atLeast(Role.ADMIN);
  }

  /** The caller's role on the project, or empty when the project does not exist for them. */
  public Optional<Role> projectRole(HubPrincipal caller, UUID projectId) {
    if (!governed(caller)) {
      return Optional.of(caller.role() == null ? Role.MEMBER : caller.role());
    }
    Role best = null;
    for (GrantRow g : grantsOf(caller)) {
      boolean covers =
          GrantRow.PROJECTS.equals(g.scope())
              || (GrantRow.PROJECT.equals(g.scope()) && projectId.equals(g.projectId()));
      if (covers) {
        best = higher(best, Role.parse(g.role()).orElse(Role.VIEWER));
      }
    }
    return Optional.ofNullable(best).map(r -> cap(caller, r));
  }

  /** The caller's role on the cluster, or empty when the cluster does not exist for them. */
  public Optional<Role> clusterRole(HubPrincipal caller, ClusterRow cluster) {
    return clusterRole(caller, cluster.labels());
  }

  /** The caller's role on a cluster with these labels. */
  public Optional<Role> clusterRole(HubPrincipal caller, Map<String, String> labels) {
    if (!governed(caller)) {
      return Optional.of(caller.role() == null ? Role.MEMBER : caller.role());
    }
    return clusterRole(caller, labels, grantsOf(caller));
  }

  /**
   * Which cluster labels a member who authenticated earlier reaches now: their role and grants are
   * read again from the database (never from the request's copy), so a grant taken away, a team
   * left or a role lowered since counts. For what outlives the request that authenticated, such as
   * an open log session. A service account reaches what its token's scopes allow, which {@code
   * CallerCheck} checks again; a removed member reaches nothing.
   */
  public Predicate<Map<String, String>> clustersReachedNow(HubPrincipal caller) {
    if (!caller.isMember()) {
      return labels -> true;
    }
    Optional<Role> role =
        members.findById(caller.orgId(), caller.memberId()).flatMap(m -> Role.parse(m.role()));
    if (role.isEmpty()) {
      return labels -> false;
    }
    HubPrincipal now = caller.withRole(role.get());
    if (!governed(now)) {
      return labels -> true;
    }
    List<GrantRow> current = grants.ofMember(now.orgId(), now.memberId());
    return labels -> clusterRole(now, labels, current).isPresent();
  }

  private static Optional<Role> clusterRole(
      HubPrincipal caller, Map<String, String> labels, List<GrantRow> grants) {
    Role best = null;
    for (GrantRow g : grants) {
      if (!GrantRow.CLUSTERS.equals(g.scope())) {
        continue;
      }
      LabelSelector s = g.selector();
      if (s != null && s.matches(labels == null ? Map.of() : labels)) {
        best = higher(best, Role.parse(g.role()).orElse(Role.VIEWER));
      }
    }
    return Optional.ofNullable(best).map(r -> cap(caller, r));
  }

  /**
   * The caller's permissions inside a project or on a cluster where their role is {@code role}: the
   * permissions in {@code scoped} come from that role (never beyond what a narrowed token allows),
   * every other permission stays what the organization role gives.
   */
  public static Set<Permission> within(HubPrincipal caller, Role role, Set<Permission> scoped) {
    if (!governed(caller)) {
      return caller.permissions();
    }
    Set<Permission> out = EnumSet.noneOf(Permission.class);
    out.addAll(caller.permissions());
    out.removeAll(scoped);
    Set<Permission> fromGrant = EnumSet.copyOf(role.permissions());
    fromGrant.retainAll(scoped);
    boolean narrowed =
        !caller.permissions().equals(caller.role().permissionsIn(caller.operatorOrg()));
    if (narrowed) {
      fromGrant.retainAll(caller.permissions());
    }
    out.addAll(fromGrant);
    return Set.copyOf(out);
  }

  /** An organization viewer is read-only everywhere: grants never lift them above viewer. */
  private static Role cap(HubPrincipal caller, Role fromGrant) {
    return caller.role() == Role.VIEWER ? Role.VIEWER : fromGrant;
  }

  private static Role higher(Role a, Role b) {
    return a == null || b.atLeast(a) ? b : a;
  }

  @SuppressWarnings("unchecked")
  private List<GrantRow> grantsOf(HubPrincipal caller) {
    RequestAttributes request = RequestContextHolder.getRequestAttributes();
    String key = CACHE + "." + caller.memberId();
    if (request != null) {
      Object cached = request.getAttribute(key, RequestAttributes.SCOPE_REQUEST);
      if (cached != null) {
        return (List<GrantRow>) cached;
      }
    }
    List<GrantRow> found = grants.ofMember(caller.orgId(), caller.memberId());
    if (request != null) {
      request.setAttribute(key, found, RequestAttributes.SCOPE_REQUEST);
    }
    return found;
  }
}
