package dev.gitopshq.hub.sso;

import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseCookie;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.CookieValue;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/auth}: what sign-in methods the hub offers, SSO sign-in for browsers and command
 * lines, and sign-out. Everything but sign-out is reachable without a token.
 */
@RestController
@RequestMapping("/api/v2/auth")
public class AuthController {
  /** Binds a browser sign-in to the browser that started it (login CSRF protection). */
  static final String STATE_COOKIE = "gitopshq_oidc_state";

  static final String COOKIE_PATH = "/api/v2/auth/oidc";
  private static final int MAX_TOKEN_CHARS = 16 * 1024;

  private final OidcProperties config;
  private final SsoLogin login;
  private final SsoMembers members;
  private final Clock clock;

  public AuthController(OidcProperties config, SsoLogin login, SsoMembers members, Clock clock) {
    this.config = config;
    this.login = login;
    this.members = members;
    this.clock = clock;
  }

  record Sso(
      boolean enabled,
      String issuer,
      String clientId,
      String cliClientId,
      List<String> scopes,
      List<String> cliScopes,
      String loginUrl,
      String tokenUrl) {}

  record AuthConfig(Sso sso, boolean apiTokens) {}

  record TokenExchange(@Schema(requiredMode = Schema.RequiredMode.REQUIRED) String accessToken) {
    @Override
    public String toString() {
      return "TokenExchange[]";
    }
  }

  record MemberRef(String id, String email, String name, String role, List<String> teams) {}

  /** A hub session; {@code token} is shown once. */
  record SessionView(String token, String sessionId, Instant expiresAt, MemberRef member) {
    static SessionView of(SsoMembers.IssuedSession s) {
      return new SessionView(
          s.token(),
          s.sessionId().toString(),
          s.expiresAt(),
          new MemberRef(
              s.member().id().toString(),
              s.member().email(),
              s.member().name(),
              s.member().role(),
              s.member().teams()));
    }

    @Override
    public String toString() {
      return "SessionView[" + sessionId + "]";
    }
  }

  @GetMapping("/config")
  AuthConfig config() {
    if (!config.enabled()) {
      return new AuthConfig(new Sso(false, null, null, null, null, null, null, null), true);
    }
    return new AuthConfig(
        new Sso(
            true,
            config.issuer(),
            config.clientId(),
            config.cliClientId(),
            config.scopes(),
            config.cliScopes(),
            "/api/v2/auth/oidc/login",
            "/api/v2/auth/oidc/token"),
        true);
  }

  /** Starts a browser sign-in: a redirect to the provider, and the state bound to a cookie. */
  @GetMapping("/oidc/login")
  @ApiResponse(responseCode = "302", description = "A redirect to the identity provider")
  ResponseEntity<Void> login(
      @Parameter(
              required = true,
              description =
                  "The web UI's random state for this sign-in (22 to 128 characters of A-Z, a-z,"
                      + " 0-9, '-', '_'), returned with the session in the fragment")
          @RequestParam(name = "client_state", required = false)
          String clientState,
      HttpServletRequest request) {
    SsoLogin.Started s = login.start(clientState, request.getRemoteAddr());
    return ResponseEntity.status(HttpStatus.FOUND)
        .location(s.redirect())
        .header(
            HttpHeaders.SET_COOKIE,
            stateCookie(s.state(), SsoLogin.LOGIN_TTL.toSeconds()).toString())
        .header(HttpHeaders.CACHE_CONTROL, "no-store")
        .build();
  }

  /**
   * The provider's redirect back. On success the browser goes to the post-login page with the
   * session token in the URL fragment, which browsers never send to a server, so it stays out of
   * access logs and Referer headers. The fragment also carries the UI's {@code client_state} of the
   * sign-in: the UI keeps the session only when that state is the one its tab started the sign-in
   * with (so a link with another session in it cannot swap the user), and always clears the
   * fragment.
   */
  @GetMapping("/oidc/callback")
  @ApiResponse(
      responseCode = "302",
      description = "A redirect to the web UI, the session token in the URL fragment")
  ResponseEntity<Void> callback(
      @RequestParam(name = "code", required = false) String code,
      @RequestParam(name = "state", required = false) String state,
      @RequestParam(name = "error", required = false) String error,
      @CookieValue(name = STATE_COOKIE, required = false) String browserState) {
    if (error != null) {
      throw OidcProvider.refused(
          "the identity provider refused the sign-in ("
              + (error.matches("[a-z_]{1,64}") ? error : "error")
              + ")");
    }
    if (state == null || state.isEmpty() || state.length() > 512) {
      throw ApiException.invalid("state", "is required");
    }
    if (code == null || code.isEmpty() || code.length() > 4096) {
      throw ApiException.invalid("code", "is required");
    }
    SsoLogin.SignedIn done = login.complete(state, code, browserState);
    SsoMembers.IssuedSession s = done.session();
    long seconds = Math.max(0, Duration.between(clock.instant(), s.expiresAt()).toSeconds());
    URI target =
        URI.create(
            config.postLoginRedirect()
                + "#session_token="
                + s.token()
                + "&expires_in="
                + seconds
                + (done.clientState() == null ? "" : "&client_state=" + done.clientState()));
    return ResponseEntity.status(HttpStatus.FOUND)
        .location(target)
        .header(HttpHeaders.SET_COOKIE, stateCookie("", 0).toString())
        .header(HttpHeaders.CACHE_CONTROL, "no-store")
        .header("Referrer-Policy", "no-referrer")
        .build();
  }

  /** A command line's sign-in: the provider's access token (device flow) for a hub session. */
  @PostMapping("/oidc/token")
  @ApiResponse(
      responseCode = "201",
      description = "A hub session for the provider's access token",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = SessionView.class)))
  ResponseEntity<SessionView> exchange(@RequestBody TokenExchange body) {
    if (body == null || body.accessToken() == null || body.accessToken().isBlank()) {
      throw ApiException.invalid("accessToken", "is required");
    }
    if (body.accessToken().length() > MAX_TOKEN_CHARS) {
      throw ApiException.invalid(
          "accessToken", "is longer than " + MAX_TOKEN_CHARS + " characters");
    }
    return ResponseEntity.status(HttpStatus.CREATED)
        .header(HttpHeaders.CACHE_CONTROL, "no-store")
        .body(SessionView.of(login.exchange(body.accessToken())));
  }

  /** Signs out: revokes the hub session the request presents. API tokens are not sessions. */
  @PostMapping("/logout")
  @ApiResponse(responseCode = "204", description = "The session was ended")
  ResponseEntity<Void> logout() {
    HubPrincipal caller = Authz.caller();
    if (!members.signOut(caller)) {
      throw ApiException.invalid(
          "Authorization",
          "sign-out ends SSO sessions (ghqo_ tokens); API tokens are revoked where they are managed");
    }
    return ResponseEntity.noContent().build();
  }

  private ResponseCookie stateCookie(String value, long maxAgeSeconds) {
    return ResponseCookie.from(STATE_COOKIE, value)
        .httpOnly(true)
        .secure(config.redirectUri() != null && config.redirectUri().startsWith("https:"))
        .sameSite("Lax")
        .path(COOKIE_PATH)
        .maxAge(maxAgeSeconds)
        .build();
  }
}
