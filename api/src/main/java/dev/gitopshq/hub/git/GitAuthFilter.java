package dev.gitopshq.hub.git;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Guards {@code /git/*}: parses the URL ({@link GitRequest}), authenticates the token (HTTP Basic
 * with the token as the password and any user name, or {@code Bearer}), and lets through only reads
 * of a repository the token may see. Git clients show a {@code text/plain} body to the user, so
 * every refusal says briefly what went wrong, without ever naming the token.
 *
 * <ul>
 *   <li>a URL that names no repository: 404;
 *   <li>no token, or one that is unknown, expired or revoked: 401 with {@code WWW-Authenticate:
 *       Basic}, the same response whatever was wrong;
 *   <li>a repository the token may not read (another project's, another organization's, one that
 *       does not exist): 404, so a token does not reveal which repositories exist;
 *   <li>an API token without {@code projects:read}: 403;
 *   <li>a push: 403, the repositories are read-only.
 * </ul>
 */
public class GitAuthFilter extends OncePerRequestFilter {
  /** The request attribute carrying the {@link GitAccess.Target} the resolver may open. */
  static final String TARGET = GitAuthFilter.class.getName() + ".target";

  static final String CHALLENGE = "Basic realm=\"GitOpsHQ\"";

  private static final Logger log = LoggerFactory.getLogger(GitAuthFilter.class);

  private final GitAccess access;

  public GitAuthFilter(GitAccess access) {
    this.access = access;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String path = request.getRequestURI().substring(request.getContextPath().length());
    Optional<GitRequest> parsed = GitRequest.parse(path, request.getQueryString());
    if (parsed.isEmpty()) {
      refuse(response, HttpServletResponse.SC_NOT_FOUND, "repository not found");
      return;
    }
    GitRequest git = parsed.get();
    String token = token(request);
    if (token == null) {
      unauthorized(response);
      return;
    }
    GitAccess.Decision decision = access.check(token, git);
    switch (decision) {
      case GitAccess.Decision.Unauthenticated u -> unauthorized(response);
      case GitAccess.Decision.NotFound n ->
          refuse(response, HttpServletResponse.SC_NOT_FOUND, "repository not found");
      case GitAccess.Decision.Forbidden f ->
          refuse(
              response,
              HttpServletResponse.SC_FORBIDDEN,
              "reading this repository requires the 'projects:read' permission");
      case GitAccess.Decision.Allowed a -> {
        if (git.service() == GitRequest.Service.RECEIVE_PACK) {
          log.info(
              "refused a push to {}/{} ({})", git.orgSlug(), git.project(), describe(a.caller()));
          refuse(
              response,
              HttpServletResponse.SC_FORBIDDEN,
              "this repository is read-only: GitOpsHQ writes it, change the project through the"
                  + " hub instead");
          return;
        }
        if (git.service() == GitRequest.Service.DUMB) {
          refuse(
              response,
              HttpServletResponse.SC_FORBIDDEN,
              "only the smart HTTP protocol is served; use git 1.6.6 or newer");
          return;
        }
        request.setAttribute(TARGET, a.target());
        chain.doFilter(request, response);
      }
    }
  }

  /** The caller for a log line: token or member ids, never a token value. */
  private static String describe(GitAccess.Caller caller) {
    return switch (caller) {
      case GitAccess.Caller.Deploy d -> "deploy token " + d.tokenId();
      case GitAccess.Caller.Api a -> "token " + a.principal().tokenId();
    };
  }

  /**
   * The presented token: the password of HTTP Basic (Git clients send the user name too, which does
   * not matter), or a bearer token. Null when there is none.
   */
  static String token(HttpServletRequest request) {
    String header = request.getHeader("Authorization");
    if (header == null) {
      return null;
    }
    if (header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      String t = header.substring(7).trim();
      return t.isEmpty() ? null : t;
    }
    if (header.regionMatches(true, 0, "Basic ", 0, 6)) {
      String decoded;
      try {
        decoded =
            new String(
                Base64.getDecoder().decode(header.substring(6).trim()), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        return null;
      }
      int colon = decoded.indexOf(':');
      String password = colon < 0 ? "" : decoded.substring(colon + 1);
      return password.isEmpty() ? null : password;
    }
    return null;
  }

  private static void unauthorized(HttpServletResponse response) throws IOException {
    response.setHeader("WWW-Authenticate", CHALLENGE);
    refuse(
        response,
        HttpServletResponse.SC_UNAUTHORIZED,
        "authentication required: use a deploy token of the project (or an API token) as the"
            + " password");
  }

  private static void refuse(HttpServletResponse response, int status, String message)
      throws IOException {
    response.setStatus(status);
    response.setContentType("text/plain;charset=utf-8");
    response.setHeader("Cache-Control", "no-store");
    response.getOutputStream().write((message + "\n").getBytes(StandardCharsets.UTF_8));
  }
}
