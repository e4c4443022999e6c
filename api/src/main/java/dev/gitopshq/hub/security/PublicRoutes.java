package dev.gitopshq.hub.security;

import java.util.List;
import org.springframework.http.HttpMethod;
import org.springframework.util.AntPathMatcher;

/**
 * The routes that need no bearer token, in one list: {@link SecurityConfig} lets exactly these
 * through, and the OpenAPI document marks exactly these operations as needing no security.
 */
public final class PublicRoutes {
  /**
   * One public route.
   *
   * @param method the method; null for any
   * @param pattern an Ant-style path pattern
   * @param why why no token is needed
   */
  public record Route(HttpMethod method, String pattern, String why) {}

  public static final List<Route> ALL =
      List.of(
          new Route(null, "/actuator/health", "probes"),
          new Route(null, "/actuator/health/**", "probes"),
          new Route(null, "/error", "Spring's error page"),
          new Route(HttpMethod.GET, "/charts/**", "the agent chart's Helm repository"),
          new Route(
              null, "/git/**", "hosted Git: HTTP Basic with deploy tokens, in its own filter"),
          new Route(
              HttpMethod.POST,
              "/api/v2/webhooks/image-update",
              "signed with the project's webhook secret (HMAC of the body) instead"),
          new Route(HttpMethod.GET, "/api/v2/auth/config", "sign-in: the methods on offer"),
          new Route(HttpMethod.GET, "/api/v2/auth/oidc/login", "the SSO flow"),
          new Route(HttpMethod.GET, "/api/v2/auth/oidc/callback", "the SSO flow"),
          new Route(HttpMethod.POST, "/api/v2/auth/oidc/token", "the CLI's device flow"));

  private static final AntPathMatcher MATCHER = new AntPathMatcher();

  private PublicRoutes() {}

  /** Whether a request (or an OpenAPI path template such as {@code /charts/{file}}) is public. */
  public static boolean isPublic(String method, String path) {
    return ALL.stream()
        .anyMatch(
            r ->
                (r.method() == null || r.method().name().equals(method))
                    && MATCHER.match(r.pattern(), path));
  }
}
