package dev.gitopshq.hub.security;

import dev.gitopshq.activities.identity.ApiTokenMapper;
import dev.gitopshq.activities.identity.MemberSessionMapper;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.identity.Role;
import dev.gitopshq.activities.identity.TokenPrincipal;
import dev.gitopshq.activities.tokens.TokenKind;
import dev.gitopshq.activities.tokens.Tokens;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import org.springframework.stereotype.Component;

/** Resolves a presented API token to a {@link HubPrincipal}, by its SHA-256 hash. */
@Component
public class TokenAuthenticator {
  /**
   * How often a cached token's use is written as its {@code lastUsedAt} (the mapper's own floor).
   */
  private static final Duration TOUCH_EVERY = Duration.ofMinutes(1);

  private final ApiTokenMapper tokens;
  private final MemberSessionMapper sessions;
  private final Clock clock;
  private final AuthCache cache;

  public TokenAuthenticator(
      ApiTokenMapper tokens, MemberSessionMapper sessions, Clock clock, AuthCache cache) {
    this.tokens = tokens;
    this.sessions = sessions;
    this.clock = clock;
    this.cache = cache;
  }

  /**
   * The principal for a token, or empty for anything that is not a live API token: revoked,
   * expired, of a removed member or of a disabled service account. Every request and every Git
   * fetch comes through here, so a revocation takes effect on the next one. A use is recorded as
   * the token's {@code lastUsedAt} (at most once a minute). Issued tokens are {@code ghqp_}/{@code
   * ghqs_} + 64 hex (and SSO sessions {@code ghqo_} + 64 hex, looked up in their own table), but an
   * operator-chosen bootstrap token (GITOPSHQ_BOOTSTRAP_TOKEN) may have any shape of 32 to 256
   * characters, so only the length is checked before the hash lookup. A live authentication is kept
   * in the {@link AuthCache}, which forgets it on any change that could end or narrow it; only live
   * ones are kept, so an unknown token always costs a lookup.
   */
  public Optional<HubPrincipal> authenticate(String token) {
    if (token == null || token.length() < 32 || token.length() > 256) {
      return Optional.empty();
    }
    String hash = Tokens.sha256Hex(token);
    Instant now = clock.instant();
    Optional<AuthCache.Entry> cached = cache.get(hash, now);
    if (cached.isPresent()) {
      AuthCache.Entry e = cached.get();
      if (e.apiToken && !now.isBefore(e.touchedAt.plus(TOUCH_EVERY))) {
        e.touchedAt = now;
        tokens.touch(e.principal.tokenId(), now);
      }
      return Optional.of(e.principal);
    }
    long generation = cache.generation();
    // A hub session from an SSO sign-in: the member's current role, never more.
    boolean session = TokenKind.SESSION.matches(token);
    Optional<TokenPrincipal> found =
        session ? sessions.authenticate(hash, now) : tokens.authenticate(hash, now);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    TokenPrincipal p = found.get();
    if (!session) {
      tokens.touch(p.tokenId(), now);
    }
    HubPrincipal principal = toPrincipal(p);
    cache.put(hash, generation, principal, p.expiresAt(), !session, now);
    return Optional.of(principal);
  }

  private HubPrincipal toPrincipal(TokenPrincipal p) {
    Set<Permission> scopes = EnumSet.noneOf(Permission.class);
    p.scopes().forEach(s -> Permission.fromScope(s).ifPresent(scopes::add));
    if (!p.operatorOrg()) {
      // Only the operator organization administers the instance, whatever a token says.
      scopes.remove(Permission.ORGS_WRITE);
    }
    if (p.memberId() != null) {
      Role role = Role.parse(p.role()).orElse(Role.VIEWER);
      Set<Permission> granted = EnumSet.copyOf(role.permissionsIn(p.operatorOrg()));
      // A member token with scopes is narrowed to them; it never exceeds the member's role.
      if (!p.scopes().isEmpty()) {
        granted.retainAll(scopes);
      }
      return new HubPrincipal(
          p.orgId(),
          p.tokenId(),
          p.memberId(),
          null,
          p.name(),
          role,
          Set.copyOf(granted),
          p.operatorOrg());
    }
    return new HubPrincipal(
        p.orgId(),
        p.tokenId(),
        null,
        p.serviceAccountId(),
        p.name(),
        null,
        Set.copyOf(scopes),
        p.operatorOrg());
  }
}
