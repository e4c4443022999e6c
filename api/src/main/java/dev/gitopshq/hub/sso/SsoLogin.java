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
   * Starts a browser sign-in for {@code clientAddress} (the request's remote address: behind a
   * reverse proxy, the hub must be told to trust its forwarded address, or every browser counts as
   * the proxy).
   */
  public Started start(String clientAddress) {
    requireEnabled();
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
   * the sign-in's nonce.
   */
  public SsoMembers.IssuedSession complete(String state, String code, String browserState) {
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
    return signIn(identity(jwt), "browser");
  }

  /**
   * Exchanges an access token of the provider (a command line's, from the device flow) for a hub
   * session. Any token that does not verify — another issuer, another audience, expired, a bad
   * signature — is the same 401 as every bad bearer token.
   */
  public SsoMembers.IssuedSession exchange(String accessToken) {
    requireEnabled();
    Jwt jwt;
    try {
      jwt = provider.verifyAccessToken(accessToken);
    } catch (JwtException e) {
      throw ApiException.unauthorized();
    }
    return signIn(identity(jwt), "cli");
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
        email.toLowerCase(java.util.Locale.ROOT),
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
