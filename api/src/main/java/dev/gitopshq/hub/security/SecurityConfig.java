package dev.gitopshq.hub.security;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.hub.web.ApiError;
import dev.gitopshq.hub.web.SinglePageApp;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;

/**
 * Stateless bearer-token security for the REST API. Permissions are checked in the controllers
 * through {@link Authz}, so each 403 names the permission that was missing.
 */
@Configuration
public class SecurityConfig {

  /** The one body every unauthenticated request gets, whatever was wrong with its token. */
  static final ApiError UNAUTHORIZED =
      new ApiError(401, "unauthorized", "a valid bearer token is required", null);

  @Bean
  SecurityFilterChain api(HttpSecurity http, TokenAuthenticator authenticator, ObjectMapper json)
      throws Exception {
    http.csrf(c -> c.disable())
        .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .httpBasic(b -> b.disable())
        .formLogin(f -> f.disable())
        .logout(l -> l.disable())
        .requestCache(r -> r.disable())
        .headers(
            h ->
                h.contentSecurityPolicy(
                    c -> c.policyDirectives(SinglePageApp.CONTENT_SECURITY_POLICY)))
        .addFilterBefore(new BearerTokenFilter(authenticator), AnonymousAuthenticationFilter.class)
        .authorizeHttpRequests(
            a -> {
              for (PublicRoutes.Route r : PublicRoutes.ALL) {
                (r.method() == null
                        ? a.requestMatchers(r.pattern())
                        : a.requestMatchers(r.method(), r.pattern()))
                    .permitAll();
              }
              a.requestMatchers("/api/**", "/actuator/**").authenticated().anyRequest().permitAll();
            })
        .exceptionHandling(
            e -> e.authenticationEntryPoint((req, res, ex) -> write(res, json, UNAUTHORIZED)));
    return http.build();
  }

  private static void write(HttpServletResponse res, ObjectMapper json, ApiError error)
      throws IOException {
    res.setStatus(error.status());
    res.setContentType(MediaType.APPLICATION_JSON_VALUE);
    res.setHeader("WWW-Authenticate", "Bearer");
    json.writeValue(res.getOutputStream(), error);
  }
}
