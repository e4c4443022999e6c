package dev.gitopshq.hub.sso;

import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.identity.MemberMapper;
import dev.gitopshq.activities.identity.MemberRow;
import dev.gitopshq.activities.identity.MemberSessionMapper;
import dev.gitopshq.activities.identity.MemberSessionMapper.MemberSession;
import dev.gitopshq.activities.identity.Role;
import dev.gitopshq.activities.org.OrgMapper;
import dev.gitopshq.activities.org.OrgRow;
import dev.gitopshq.activities.tokens.TokenKind;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.team.TeamService;
import dev.gitopshq.hub.web.ApiError;
import dev.gitopshq.hub.web.ApiException;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Turns a verified provider identity into a member and a hub session: finds the member by issuer
 * and subject (or links the member with that email at the first sign-in, or provisions one),
 * applies the group mapping, and issues a {@code ghqo_} session. Each step that changes a member is
 * audited, in the same transaction as the change.
 */
@Service
public class SsoMembers {
  /** The actor of changes the group mapping makes. */
  static final Actor MAPPING = new Actor("system", "sso", "sso group mapping");

  private final OidcProperties config;
  private final OrgMapper orgs;
  private final MemberMapper members;
  private final MemberSessionMapper sessions;
  private final AuditLog audit;
  private final Clock clock;
  private final TeamService teams;

  public SsoMembers(
      OidcProperties config,
      OrgMapper orgs,
      MemberMapper members,
      MemberSessionMapper sessions,
      AuditLog audit,
      Clock clock,
      TeamService teams) {
    this.config = config;
    this.orgs = orgs;
    this.members = members;
    this.sessions = sessions;
    this.audit = audit;
    this.clock = clock;
    this.teams = teams;
  }

  /** Who the provider says signed in: verified claims of an ID token or access token. */
  record Identity(
      String issuer,
      String subject,
      String email,
      boolean emailVerified,
      String name,
      List<String> groups) {}

  /** A session just issued: the token is returned once and only its hash is stored. */
  public record IssuedSession(String token, UUID sessionId, Instant expiresAt, MemberRow member) {
    @Override
    public String toString() {
      return "IssuedSession[id=" + sessionId + "]";
    }
  }

  /** The organization SSO members join; 503 when the configured one does not exist. */
  OrgRow organization() {
    return orgs.findBySlug(config.organization())
        .orElseThrow(
            () ->
                new ApiException(
                    new ApiError(
                        503,
                        "sso_unavailable",
                        "SSO is configured for organization '"
                            + config.organization()
                            + "', which does not exist",
                        null)));
  }

  @Transactional
  public IssuedSession signIn(Identity id, String client) {
    OrgRow org = organization();
    GroupMapping.Grant grant =
        GroupMapping.apply(config, id.groups())
            .orElseThrow(
                () ->
                    ApiException.forbidden(
                        "none of your groups at the identity provider is mapped to a role in this hub"));
    UUID orgId = org.id();
    Optional<MemberRow> known = members.findByOidcIdentity(orgId, id.issuer(), id.subject());
    MemberRow member;
    if (known.isPresent()) {
      member = known.get();
    } else {
      Optional<MemberRow> byEmail = members.findByEmail(orgId, id.email());
      if (byEmail.isPresent()) {
        // Linking hands an existing account (maybe an owner's) to whoever the provider says owns
        // the address: only when the provider vouches for it.
        if (!id.emailVerified()) {
          throw ApiException.forbidden(
              "a member with your email exists; the identity provider must verify the email"
                  + " (email_verified) before it can be linked");
        }
        member = byEmail.get();
        if (members.linkOidcIdentity(orgId, member.id(), id.issuer(), id.subject()) != 1) {
          throw new IllegalStateException("member " + member.id() + " vanished while linking");
        }
        audit.record(
            orgId,
            MAPPING,
            "member.sso_linked",
            "member",
            member.id().toString(),
            Map.of("email", id.email(), "issuer", id.issuer(), "subject", id.subject()));
      } else if (members.wasRemoved(orgId, id.issuer(), id.subject(), id.email())) {
        // Removing a member is an admin's decision that a sign-in does not undo.
        throw ApiException.forbidden(
            "your membership of this organization was removed; an admin can add you again");
      } else {
        member = provision(orgId, id, grant);
      }
    }
    member = applyGrant(orgId, member, id, grant);
    return issue(orgId, member, client);
  }

  private MemberRow provision(UUID orgId, Identity id, GroupMapping.Grant grant) {
    MemberRow row =
        new MemberRow(
            UUID.randomUUID(),
            orgId,
            id.email(),
            id.name(),
            grant.role().wireName(),
            grant.teams(),
            clock.instant());
    members.insert(row);
    members.linkOidcIdentity(orgId, row.id(), id.issuer(), id.subject());
    teams.syncMemberships(orgId, row.id(), grant.teams(), TeamService.OIDC);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("email", id.email());
    d.put("name", id.name());
    d.put("issuer", id.issuer());
    d.put("subject", id.subject());
    d.put("groups", grant.matchedGroups());
    d.put("role", grant.role().wireName());
    d.put("teams", grant.teams());
    audit.record(orgId, MAPPING, "member.sso_provisioned", "member", row.id().toString(), d);
    return row;
  }

  /**
   * Sets the member's role and teams to what their groups grant, and audits the change. Owners keep
   * their role: owners are made and unmade in the hub, never by a provider's groups.
   */
  private MemberRow applyGrant(
      UUID orgId, MemberRow member, Identity id, GroupMapping.Grant grant) {
    Role current = Role.parse(member.role()).orElse(Role.VIEWER);
    Role next = current == Role.OWNER ? Role.OWNER : grant.role();
    List<String> teams = grant.teams();
    // The groups decide the member's 'oidc' team memberships; those an admin gave stay.
    List<String> before = this.teams.names(orgId, member.id(), TeamService.OIDC);
    if (next == current && teams.equals(before)) {
      return member;
    }
    members.update(orgId, member.id(), next.wireName(), member.teams());
    this.teams.syncMemberships(orgId, member.id(), teams, TeamService.OIDC);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("groups", grant.matchedGroups());
    d.put("issuer", id.issuer());
    d.put("role", Map.of("from", current.wireName(), "to", next.wireName()));
    d.put("teams", Map.of("from", before, "to", teams));
    audit.record(orgId, MAPPING, "member.sso_mapping_applied", "member", member.id().toString(), d);
    return members.findById(orgId, member.id()).orElseThrow();
  }

  private IssuedSession issue(UUID orgId, MemberRow member, String client) {
    Instant now = clock.instant();
    Tokens.IssuedToken token = Tokens.issue(TokenKind.SESSION);
    MemberSession s =
        new MemberSession(
            UUID.randomUUID(),
            orgId,
            member.id(),
            token.hash(),
            client,
            now,
            now.plus(config.sessionTtl()),
            null);
    sessions.insert(s);
    audit.record(
        orgId,
        new Actor("member", member.id().toString(), member.email()),
        "member.signed_in",
        "member",
        member.id().toString(),
        Map.of(
            "sessionId",
            s.id().toString(),
            "client",
            client,
            "expiresAt",
            s.expiresAt().toString()));
    return new IssuedSession(token.value(), s.id(), s.expiresAt(), member);
  }

  /** Revokes the caller's own session; false when the caller did not present a session token. */
  @Transactional
  public boolean signOut(HubPrincipal caller) {
    if (!caller.isMember()
        || sessions.revoke(caller.orgId(), caller.memberId(), caller.tokenId(), clock.instant())
            != 1) {
      return false;
    }
    audit.record(
        caller.orgId(),
        caller.actor(),
        "member.signed_out",
        "member",
        caller.memberId().toString(),
        Map.of("sessionId", caller.tokenId().toString()));
    return true;
  }
}
