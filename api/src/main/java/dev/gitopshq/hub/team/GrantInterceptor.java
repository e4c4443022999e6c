package dev.gitopshq.hub.team;

import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.command.CommandMapper;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.identity.Role;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The one place grants are enforced for objects addressed by path: every endpoint whose pattern
 * starts {@code /api/v2/projects/{id}}, {@code /api/v2/clusters/{id}} or {@code
 * /api/v2/commands/{id}} (a command is its cluster's; whatever the variable is called) first asks
 * {@link Access} for the caller's role on that project or cluster. None: 404, exactly as for an
 * object that does not exist. Some: the caller's project (or cluster) permissions for the rest of
 * the request are those of that role, so the controllers' own {@code Authz.require} checks judge
 * the grant.
 */
@Configuration
public class GrantInterceptor implements HandlerInterceptor, WebMvcConfigurer {
  private static final String PROJECTS = "/api/v2/projects/{";
  private static final String CLUSTERS = "/api/v2/clusters/{";
  private static final String COMMANDS = "/api/v2/commands/{";

  private final Access access;
  private final ClusterMapper clusters;
  private final CommandMapper commands;

  public GrantInterceptor(Access access, ClusterMapper clusters, CommandMapper commands) {
    this.access = access;
    this.clusters = clusters;
    this.commands = commands;
  }

  @Override
  public void addInterceptors(InterceptorRegistry registry) {
    registry
        .addInterceptor(this)
        .addPathPatterns("/api/v2/projects/**", "/api/v2/clusters/**", "/api/v2/commands/**");
  }

  @Override
  public boolean preHandle(
      HttpServletRequest request, HttpServletResponse response, Object handler) {
    Authentication auth = SecurityContextHolder.getContext().getAuthentication();
    if (auth == null || !(auth.getPrincipal() instanceof HubPrincipal caller)) {
      return true;
    }
    if (!Access.governed(caller)) {
      return true;
    }
    Object pattern = request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
    if (!(pattern instanceof String p)) {
      return true;
    }
    if (p.startsWith(PROJECTS)) {
      UUID id = id(request, p.substring(PROJECTS.length()));
      if (id == null) {
        return true;
      }
      Role role =
          access.projectRole(caller, id).orElseThrow(() -> ApiException.notFound("project " + id));
      narrow(auth, caller, Access.within(caller, role, Access.PROJECT_PERMISSIONS));
    } else if (p.startsWith(CLUSTERS)) {
      UUID id = id(request, p.substring(CLUSTERS.length()));
      if (id == null) {
        return true;
      }
      Optional<ClusterRow> cluster = clusters.findById(caller.orgId(), id);
      Role role =
          cluster
              .flatMap(c -> access.clusterRole(caller, c))
              .orElseThrow(() -> ApiException.notFound("cluster " + id));
      narrow(auth, caller, Access.within(caller, role, Access.CLUSTER_PERMISSIONS));
    } else if (p.startsWith(COMMANDS)) {
      // A command is its cluster's: without a grant on the cluster it does not exist either.
      UUID id = id(request, p.substring(COMMANDS.length()));
      if (id == null) {
        return true;
      }
      Role role =
          commands
              .findById(caller.orgId(), id)
              .flatMap(c -> clusters.findById(caller.orgId(), c.clusterId()))
              .flatMap(c -> access.clusterRole(caller, c))
              .orElseThrow(() -> ApiException.notFound("command " + id));
      narrow(auth, caller, Access.within(caller, role, Access.CLUSTER_PERMISSIONS));
    }
    return true;
  }

  /** The UUID in the first path variable of the rest of a pattern, or null when it is not one. */
  private static UUID id(HttpServletRequest request, String rest) {
    int end = rest.length();
    for (int i = 0; i < rest.length(); i++) {
      char c = rest.charAt(i);
      if (c == ':' || c == '}') {
        end = i;
        break;
      }
    }
    String variable = rest.substring(0, end);
    Object vars = request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
    if (!(vars instanceof Map<?, ?> m) || !(m.get(variable) instanceof String value)) {
      return null;
    }
    try {
      return UUID.fromString(value);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static void narrow(Authentication auth, HubPrincipal caller, Set<Permission> perms) {
    if (perms.equals(caller.permissions())) {
      return;
    }
    HubPrincipal scoped = caller.withPermissions(perms);
    SecurityContext context = SecurityContextHolder.createEmptyContext();
    context.setAuthentication(
        new UsernamePasswordAuthenticationToken(
            scoped, auth.getCredentials(), auth.getAuthorities()));
    SecurityContextHolder.setContext(context);
  }
}
