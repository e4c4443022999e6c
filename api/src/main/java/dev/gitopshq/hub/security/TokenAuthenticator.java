package dev.gitopshq.hub.security;

import dev.gitopshq.activities.identity.ApiTokenMapper;
import dev.gitopshq.activities.identity.MemberSessionMapper;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.identity.Role;
import dev.gitopshq.activities.identity.TokenPrincipal;
import dev.gitopshq.activities.tokens.TokenKind;
import dev.gitopshq.activities.tokens.Tokens;
import java.time.Clock;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import org.springframework.stereotype.Component;

/** Resolves a presented API token to a {@link HubPrincipal}, by its SHA-256 hash. */
@Component
public class TokenAuthenticator {
  private final ApiTokenMapper tokens;
  private final MemberSessionMapper sessions;
  private final Clock clock;

  public TokenAuthenticator(ApiTokenMapper tokens, MemberSessionMapper sessions, Clock clock) {
    this.tokens = tokens;
    this.sessions = sessions;
    this.clock = clock;
  }

  /**
   * The principal for a token, or empty for anything that is not a live API token: revoked,
   * expired, of a removed member or of a disabled service account. Every request and every Git
   * fetch comes through here, so a revocation takes effect on the next one. A use is recorded as
   * the token's {@code lastUsedAt} (at most once a minute). Issued tokens are {@code ghqp_}/{@code
   * ghqs_} + 64 hex (and SSO sessions {@code ghqo_} + 64 hex, looked up in their own table), but an
   * operator-chosen bootstrap token (GITOPSHQ_BOOTSTRAP_TOKEN) may have any shape of 32 to 256
   * characters, so only the length is checked before the hash lookup.
   */
  public Optional<HubPrincipal> authenticate(String token) {
    if (token == null || token.length() < 32 || token.length() > 256) {
      return Optional.empty();
    }
    // A hub session from an SSO sign-in: the member's current role, never more.
    if (TokenKind.SESSION.matches(token)) {
      return sessions.authenticate(Tokens.sha256Hex(token), clock.instant()).map(this::toPrincipal);
    }
    var now = clock.instant();
    Optional<TokenPrincipal> principal = tokens.authenticate(Tokens.sha256Hex(token), now);
    principal.ifPresent(p -> tokens.touch(p.tokenId(), now));
    return principal.map(this::toPrincipal);
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
