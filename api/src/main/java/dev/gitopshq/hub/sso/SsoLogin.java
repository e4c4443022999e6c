package dev.gitopshq.hub.sso;

import dev.gitopshq.activities.crypto.SecretBox;
import dev.gitopshq.activities.identity.OidcLoginMapper;
import dev.gitopshq.activities.identity.OidcLoginMapper.OidcLogin;
import dev.gitopshq.activities.org.OrgRow;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.hub.web.ApiError;
import dev.gitopshq.hub.web.ApiException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.stereotype.Service;

/**
 * The two ways into a hub session: the browser's authorization code flow with PKCE (state, nonce
 * and code verifier kept in {@code oidc_logins}, used once), and the exchange of an access token a
 * command line got through the device flow.
 */
@Service
public class SsoLogin {
  /**
   * How long a browser has between the redirect to the provider and the callback (a sign-in at the
   * provider takes seconds; a pending one holds a place until then).
   */
  static final Duration LOGIN_TTL = Duration.ofMinutes(3);

  /**
   * Sign-ins in flight one client address may hold: starting one needs no token, so an address that
   * starts more is answered with 429 while others still sign in.
   */
  static final long MAX_PENDING_PER_ADDRESS = 20;

  /**
   * Sign-ins in flight the hub keeps at most: starting one needs no token, so a flood of them is
   * answered with 429 instead of filling the table.
   */
  static final long MAX_PENDING_LOGINS = 10_000;

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Base64.Encoder B64URL = Base64.getUrlEncoder().withoutPadding();
  private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s]+\\.[^@\\s]+");
  private static final int MAX_GROUPS = 1000;

  private final OidcProperties config;
  private final OidcProvider provider;
  private final OidcLoginMapper logins;
  private final SecretBox box;
  private final SsoMembers members;
  private final Clock clock;

  public SsoLogin(
      OidcProperties config,
      OidcProvider provider,
      OidcLoginMapper logins,
      SecretBox box,
      SsoMembers members,
      Clock clock) {
    this.config = config;
    this.provider = provider;
    this.logins = logins;
    this.box = box;
    this.members = members;
    this.clock = clock;
  }

  /** A browser sign-in just started: where to send the browser, and the state to bind it to. */
  public record Started(URI redirect, String state) {
    @Override
    public String toString() {
      return "Started[" + redirect.getHost() + "]";
    }
  }

  /**
   * The web UI's own state for a sign-in: random, URL-safe, handed back in the redirect's fragment
   * so the UI accepts only the session of a sign-in its tab started.
   */
  static final Pattern CLIENT_STATE = Pattern.compile("[A-Za-z0-9_-]{22,128}");

  /** A finished browser sign-in: the session, and the UI's state of the sign-in (may be null). */
  public record SignedIn(SsoMembers.IssuedSession session, String clientState) {
    @Override
    public String toString() {
      return "SignedIn[" + session.sessionId() + "]";
    }
  }

  /**
   * Starts a browser sign-in for the web UI.
   *
   * @param clientState the UI's random state for this sign-in ({@link #CLIENT_STATE}), returned
   *     with the session at the end
   * @param clientAddress the request's remote address (behind a reverse proxy, the hub must be told
   *     to trust its forwarded address, or every browser counts as the proxy)
   */
  public Started start(String clientState, String clientAddress) {
    requireEnabled();
    if (clientState == null || clientState.isEmpty()) {
      throw ApiException.invalid("client_state", "is required");
    }
    if (!CLIENT_STATE.matcher(clientState).matches()) {
      throw ApiException.invalid(
          "client_state", "must be 22 to 128 characters of A-Z, a-z, 0-9, '-' and '_'");
    }
    OidcProvider.Metadata m = provider.metadata();
    OrgRow org = members.organization();
    String state = random();
    String nonce = random();
    String verifier = random();
    Instant now = clock.instant();
    String stateHash = Tokens.sha256Hex(state);
    logins.deleteExpired(now);
    String address =
        clientAddress == null || clientAddress.isBlank()
            ? "unknown"
            : clientAddress.substring(0, Math.min(100, clientAddress.length()));
    if (logins.countFrom(address, now) >= MAX_PENDING_PER_ADDRESS) {
      throw new ApiException(
          new ApiError(
              429,
              "too_many_requests",
              "too many sign-ins in progress from your address; finish one or try again in "
                  + LOGIN_TTL.toMinutes()
                  + " minutes",
              null));
    }
    if (logins.count() >= MAX_PENDING_LOGINS) {
      throw new ApiException(
          new ApiError(
              429,
              "too_many_requests",
              "too many sign-ins in progress; try again in a few minutes",
              null));
    }
    logins.insert(
        new OidcLogin(
            stateHash,
            org.id(),
            nonce,
            box.seal(verifier.getBytes(StandardCharsets.US_ASCII), verifierContext(stateHash)),
            clientState,
            now,
            now.plus(LOGIN_TTL),
            address));
    Map<String, String> q = new LinkedHashMap<>();
    q.put("response_type", "code");
    q.put("client_id", config.clientId());
    q.put("redirect_uri", config.redirectUri());
    q.put("scope", String.join(" ", config.scopes()));
    q.put("state", state);
    q.put("nonce", nonce);
    q.put("code_challenge", challenge(verifier));
    q.put("code_challenge_method", "S256");
    String base = m.authorizationEndpoint().toString();
    return new Started(
        URI.create(base + (base.contains("?") ? "&" : "?") + OidcProvider.formEncode(q)), state);
  }

  /**
   * Completes a browser sign-in: the state must be the one this browser started with (its cookie)
   * and still pending; the code is redeemed with the verifier; the ID token must verify and carry
   * the sign-in's nonce. The UI's state of the sign-in comes back with the session.
   */
  public SignedIn complete(String state, String code, String browserState) {
    requireEnabled();
    if (browserState == null
        || !MessageDigest.isEqual(
            state.getBytes(StandardCharsets.UTF_8),
            browserState.getBytes(StandardCharsets.UTF_8))) {
      throw ApiException.invalid("state", "does not belong to a sign-in started by this browser");
    }
    String stateHash = Tokens.sha256Hex(state);
    OidcLogin login =
        logins
            .take(stateHash, clock.instant())
            .orElseThrow(
                () ->
                    ApiException.invalid("state", "unknown, used or expired sign-in; start again"));
    String verifier;
    try {
      verifier =
          new String(
              box.open(login.codeVerifier(), verifierContext(stateHash)),
              StandardCharsets.US_ASCII);
    } catch (SecretBox.SecretBoxException e) {
      throw ApiException.invalid("state", "unknown, used or expired sign-in; start again");
    }
    String idToken = provider.redeem(code, verifier);
    Jwt jwt;
    try {
      jwt = provider.verifyIdToken(idToken);
    } catch (JwtException e) {
      throw OidcProvider.refused("the identity provider's ID token is not valid");
    }
    if (!login.nonce().equals(jwt.getClaimAsString("nonce"))) {
      throw OidcProvider.refused("the identity provider's ID token is not valid");
    }
    return new SignedIn(signIn(identity(jwt), "browser"), login.clientState());
  }

  /**
   * Exchanges an access token of the provider (a command line's, from the device flow) for a hub
   * session. Any token that does not verify — another issuer, another audience, expired, a bad
   * signature — is the same 401 as every bad bearer token. Each access token buys one session: a
   * second exchange of it (a copied or leaked token, or one kept after sign-out) is a 401 too; the
   * record of exchanged tokens lives until the token expires.
   */
  public SsoMembers.IssuedSession exchange(String accessToken) {
    requireEnabled();
    Jwt jwt;
    try {
      jwt = provider.verifyAccessToken(accessToken);
    } catch (JwtException e) {
      throw ApiException.unauthorized();
    }
    SsoMembers.Identity identity = identity(jwt);
    OrgRow org = members.organization();
    Instant now = clock.instant();
    logins.deleteExpiredExchanges(org.id(), now);
    // Kept while the provider's verification would still accept the token (exp plus the skew).
    Instant until = jwt.getExpiresAt().plus(config.clockSkew());
    if (logins.recordExchange(org.id(), exchangeKey(jwt, accessToken), now, until) == 0) {
      throw new ApiException(
          new ApiError(
              401,
              "unauthorized",
              "this access token of the identity provider was already exchanged for a hub"
                  + " session; each one is exchanged once, sign in again",
              null));
    }
    return signIn(identity, "cli");
  }

  /**
   * What identifies an access token for the exchange-once rule, as a SHA-256 hex: its issuer and
   * {@code jti} when it has one; otherwise its signed content (header and claims, not the
   * signature, which an ECDSA token admits in two forms).
   */
  static String exchangeKey(Jwt jwt, String accessToken) {
    String jti = jwt.getId();
    if (jti != null && !jti.isEmpty()) {
      return Tokens.sha256Hex("jti\n" + jwt.getClaimAsString("iss") + "\n" + jti);
    }
    int lastDot = accessToken.lastIndexOf('.');
    return Tokens.sha256Hex("jws\n" + accessToken.substring(0, Math.max(0, lastDot)));
  }

  /**
   * Signs the identity in. Two first sign-ins of one person at once both try to create the member;
   * the loser's transaction rolls back on the unique email and runs again, finding it.
   */
  private SsoMembers.IssuedSession signIn(SsoMembers.Identity id, String client) {
    try {
      return members.signIn(id, client);
    } catch (DuplicateKeyException e) {
      return members.signIn(id, client);
    }
  }

  private SsoMembers.Identity identity(Jwt jwt) {
    String email = jwt.getClaimAsString("email");
    if (email == null || email.length() > 254 || !EMAIL.matcher(email).matches()) {
      throw ApiException.forbidden("the identity provider's token has no usable email claim");
    }
    if (Boolean.FALSE.equals(jwt.getClaims().get("email_verified"))) {
      throw ApiException.forbidden("the identity provider has not verified your email address");
    }
    String name = jwt.getClaimAsString("name");
    if (name == null || name.isBlank()) {
      name = jwt.getClaimAsString("preferred_username");
    }
    if (name == null || name.isBlank() || name.length() > 128) {
      name = email;
    }
    return new SsoMembers.Identity(
        config.issuer(),
        jwt.getSubject(),
        email.toLowerCase(Locale.ROOT),
        Boolean.TRUE.equals(jwt.getClaims().get("email_verified")),
        name,
        groups(jwt.getClaims().get(config.groupsClaim())));
  }

  /** The groups claim: a list of strings (or one string); anything else counts as no groups. */
  private static List<String> groups(Object claim) {
    List<String> out = new ArrayList<>();
    if (claim instanceof String s) {
      out.add(s);
    } else if (claim instanceof Collection<?> c) {
      for (Object o : c) {
        if (o instanceof String s && s.length() <= 256 && out.size() < MAX_GROUPS) {
          out.add(s);
        }
      }
    }
    return out;
  }

  private void requireEnabled() {
    if (!config.enabled()) {
      throw ApiException.notFound("SSO (no identity provider is configured)");
    }
  }

  static String verifierContext(String stateHash) {
    return "oidc-login:" + stateHash;
  }

  /** The PKCE S256 challenge of a verifier (RFC 7636, section 4.2). */
  static String challenge(String verifier) {
    try {
      return B64URL.encodeToString(
          MessageDigest.getInstance("SHA-256")
              .digest(verifier.getBytes(StandardCharsets.US_ASCII)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** 32 random bytes, base64url: 43 characters, valid as state, nonce and PKCE verifier. */
  private static String random() {
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    return B64URL.encodeToString(b);
  }
}
