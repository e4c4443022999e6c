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
 */
public class BearerTokenFilter extends OncePerRequestFilter {
  private static final String PREFIX = "Bearer ";
  private final TokenAuthenticator authenticator;

  public BearerTokenFilter(TokenAuthenticator authenticator) {
    this.authenticator = authenticator;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String header = request.getHeader("Authorization");
    if (header != null && header.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
      authenticator
          .authenticate(header.substring(PREFIX.length()).trim())
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
}
