package dev.gitopshq.hub.security;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Reads {@code Authorization: Bearer <token>} and, when the token is live, puts its {@link
 * HubPrincipal} into the security context. It never logs or echoes the header.
 *
 * <p>A browser cannot set headers on a WebSocket handshake, so an upgrade request may carry the
 * token as a subprotocol instead: {@code Sec-WebSocket-Protocol: gitopshq.logs.v1, bearer.<token>}
 * (the way Kubernetes accepts its own). That keeps it out of the URL and so out of access logs; the
 * server only ever answers with {@code gitopshq.logs.v1}.
 */
public class BearerTokenFilter extends OncePerRequestFilter {
  private static final String PREFIX = "Bearer ";
  private static final String SUBPROTOCOL_PREFIX = "bearer.";
  private final TokenAuthenticator authenticator;

  public BearerTokenFilter(TokenAuthenticator authenticator) {
    this.authenticator = authenticator;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String header = request.getHeader("Authorization");
    String token = null;
    if (header != null && header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
      token = header.substring(PREFIX.length()).trim();
    } else if ("websocket".equalsIgnoreCase(request.getHeader("Upgrade"))) {
      token = subprotocolToken(request.getHeader("Sec-WebSocket-Protocol"));
    }
    if (token != null) {
      authenticator
          .authenticate(token)
          .ifPresent(
              principal ->
                  SecurityContextHolder.getContext()
                      .setAuthentication(
                          new UsernamePasswordAuthenticationToken(
                              principal,
                              null,
                              List.of(new SimpleGrantedAuthority("ROLE_API_CALLER")))));
    }
    chain.doFilter(request, response);
  }

  /** The token of a {@code bearer.<token>} subprotocol entry, or null. */
  static String subprotocolToken(String protocols) {
    if (protocols == null || protocols.length() > 1024) {
      return null;
    }
    for (String p : protocols.split(",")) {
      String t = p.trim();
      if (t.startsWith(SUBPROTOCOL_PREFIX) && t.length() > SUBPROTOCOL_PREFIX.length()) {
        return t.substring(SUBPROTOCOL_PREFIX.length());
      }
    }
    return null;
  }
}
