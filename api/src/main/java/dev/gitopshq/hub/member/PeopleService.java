package dev.gitopshq.hub.member;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.identity.ApiTokenMapper;
import dev.gitopshq.activities.identity.ApiTokenRow;
import dev.gitopshq.activities.identity.MemberMapper;
import dev.gitopshq.activities.identity.MemberRow;
import dev.gitopshq.activities.identity.MemberSessionMapper;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.identity.Role;
import dev.gitopshq.activities.identity.ServiceAccountMapper;
import dev.gitopshq.activities.identity.ServiceAccountRow;
import dev.gitopshq.activities.tokens.TokenKind;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.team.AccessChanged;
import dev.gitopshq.hub.team.TeamService;
import dev.gitopshq.hub.web.ApiException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Members, service accounts and API tokens. Every change is audited in its own transaction. */
@Service
public class PeopleService {
  private final MemberMapper members;
  private final ServiceAccountMapper accounts;
  private final ApiTokenMapper tokens;
  private final MemberSessionMapper sessions;
  private final AuditLog audit;
  private final Clock clock;
  private final TeamService teams;
  private final ApplicationEventPublisher events;

  public PeopleService(
      MemberMapper members,
      ServiceAccountMapper accounts,
      ApiTokenMapper tokens,
      MemberSessionMapper sessions,
      AuditLog audit,
      Clock clock,
      TeamService teams,
      ApplicationEventPublisher events) {
    this.events = events;
    this.teams = teams;
    this.members = members;
    this.accounts = accounts;
    this.tokens = tokens;
    this.sessions = sessions;
    this.audit = audit;
    this.clock = clock;
  }

  /** A token just created: the plaintext is returned once and never stored. */
  public record CreatedToken(ApiTokenRow row, String token) {
    @Override
    public String toString() {
      return "CreatedToken[id=" + row.id() + "]";
    }
  }

  @Transactional
  public MemberRow addMember(
      HubPrincipal caller, String email, String name, Role role, List<String> teams) {
    if (role == Role.OWNER && caller.role() != Role.OWNER) {
      throw ApiException.forbidden("only an owner can add another owner");
    }
    if (members.findByEmail(caller.orgId(), email).isPresent()) {
      throw ApiException.conflict("a member with email '" + email + "' already exists");
    }
    MemberRow row =
        new MemberRow(
            UUID.randomUUID(),
            caller.orgId(),
            email,
            name,
            role.wireName(),
            teams,
            clock.instant());
    try {
      members.insert(row);
    } catch (DuplicateKeyException e) {
      throw ApiException.conflict("a member with email '" + email + "' already exists");
    }
    // The teams become manual memberships of real teams (made when missing).
    this.teams.syncMemberships(caller.orgId(), row.id(), row.teams(), TeamService.MANUAL);
    audit.record(
        caller.orgId(),
        caller.actor(),
        "member.added",
        "member",
        row.id().toString(),
        Map.of("email", email, "name", name, "role", role.wireName(), "teams", teams));
    return members.findById(caller.orgId(), row.id()).orElse(row);
  }

  /** Changes a member's role and/or teams. Only owners make or unmake owners. */
  @Transactional
  public MemberRow updateMember(HubPrincipal caller, UUID memberId, Role role, List<String> teams) {
    MemberRow before =
        members
            .findById(caller.orgId(), memberId)
            .orElseThrow(() -> ApiException.notFound("member " + memberId));
    Role current = Role.parse(before.role()).orElse(Role.VIEWER);
    Role next = role == null ? current : role;
    if ((current == Role.OWNER || next == Role.OWNER)
        && current != next
        && caller.role() != Role.OWNER) {
      throw ApiException.forbidden("only an owner can make or unmake an owner");
    }
    List<String> nextTeams = teams == null ? before.teams() : teams;
    members.update(caller.orgId(), memberId, next.wireName(), nextTeams);
    if (teams != null) {
      // The teams given are the member's manual memberships; those from SSO stay.
      this.teams.syncMemberships(caller.orgId(), memberId, teams, TeamService.MANUAL);
    } else {
      this.teams.refresh(caller.orgId(), memberId);
    }
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("role", Map.of("from", before.role(), "to", next.wireName()));
    d.put("teams", Map.of("from", before.teams(), "to", nextTeams));
    audit.record(
        caller.orgId(), caller.actor(), "member.updated", "member", memberId.toString(), d);
    if (next != current) {
      // A lower role may put grants in charge of what the member reaches.
      events.publishEvent(new AccessChanged(caller.orgId()));
    }
    return members.findById(caller.orgId(), memberId).orElseThrow();
  }

  @Transactional(readOnly = true)
  public Optional<MemberRow> member(UUID orgId, UUID memberId) {
    return members.findById(orgId, memberId);
  }

  @Transactional(readOnly = true)
  public List<MemberRow> members(UUID orgId) {
    return members.list(orgId);
  }

  /**
   * A new API token for a member. A member may create their own; creating one for someone else
   * takes members:write, and an admin cannot mint tokens for an owner.
   */
  @Transactional
  public CreatedToken createMemberToken(
      HubPrincipal caller, UUID memberId, String name, Duration ttl, List<String> scopes) {
    MemberRow member =
        members
            .findById(caller.orgId(), memberId)
            .orElseThrow(() -> ApiException.notFound("member " + memberId));
    boolean self = memberId.equals(caller.memberId());
    if (!self) {
      if (!caller.can(Permission.MEMBERS_WRITE)) {
        throw ApiException.forbidden(
            "creating a token for another member requires the 'members:write' permission");
      }
      Role target = Role.parse(member.role()).orElse(Role.VIEWER);
      if (target == Role.OWNER && caller.role() != Role.OWNER) {
        throw ApiException.forbidden("only an owner can create tokens for an owner");
      }
    }
    // A token narrows its member's role; it never claims more than the role holds.
    Role role = Role.parse(member.role()).orElse(Role.VIEWER);
    for (int i = 0; i < scopes.size(); i++) {
      Permission p = Permission.fromScope(scopes.get(i)).orElseThrow();
      if (!role.permissionsIn(caller.operatorOrg()).contains(p)) {
        throw ApiException.invalid(
            "scopes[" + i + "]",
            "'"
                + scopes.get(i)
                + "' is beyond the "
                + role.wireName()
                + " role of "
                + (self ? "your account" : "the member")
                + "; a token can only narrow its member's role");
      }
    }
    return mint(
        caller,
        TokenKind.PERSONAL,
        memberId,
        null,
        name,
        ttl,
        scopes,
        "member.token.created",
        "member");
  }

  @Transactional
  public ServiceAccountRow addServiceAccount(
      HubPrincipal caller, String name, String description, List<String> scopes) {
    for (String scope : scopes) {
      Permission p = Permission.fromScope(scope).orElseThrow();
      if (!caller.can(p)) {
        throw ApiException.forbidden(
            "you cannot grant the '" + scope + "' scope: you do not hold it yourself");
      }
    }
    if (accounts.findByName(caller.orgId(), name).isPresent()) {
      throw ApiException.conflict("a service account named '" + name + "' already exists");
    }
    // An account made by an account remembers it (four eyes walks the chain up to the member at
    // its root) and is answerable to that account's owner.
    UUID creatorAccount = caller.isMember() ? null : caller.serviceAccountId();
    UUID owner = caller.memberId();
    if (creatorAccount != null) {
      ServiceAccountRow creator =
          accounts
              .findById(caller.orgId(), creatorAccount)
              .orElseThrow(() -> ApiException.forbidden("the calling service account is gone"));
      owner = creator.ownerMemberId() != null ? creator.ownerMemberId() : creator.createdBy();
    }
    ServiceAccountRow row =
        new ServiceAccountRow(
            UUID.randomUUID(),
            caller.orgId(),
            name,
            description,
            scopes,
            caller.memberId(),
            clock.instant(),
            owner,
            null,
            creatorAccount);
    try {
      accounts.insert(row);
    } catch (DuplicateKeyException e) {
      throw ApiException.conflict("a service account named '" + name + "' already exists");
    }
    audit.record(
        caller.orgId(),
        caller.actor(),
        "service_account.created",
        "service_account",
        row.id().toString(),
        Map.of("name", name, "scopes", scopes));
    return row;
  }

  /**
   * Who stands behind a caller that is a service account, for four eyes: its creator and owner and,
   * when it was made by another service account, every account up that chain with its creator and
   * owner, down to the member at the root; empty for a member.
   */
  @Transactional(readOnly = true)
  public List<String> behind(HubPrincipal caller) {
    if (caller.isMember()) {
      return List.of();
    }
    return accounts.behind(caller.orgId(), caller.serviceAccountId());
  }

  @Transactional(readOnly = true)
  public List<ServiceAccountRow> serviceAccounts(UUID orgId) {
    return accounts.list(orgId);
  }

  /** A token for a service account, with a subset of the account's scopes (all when empty). */
  @Transactional
  public CreatedToken createServiceAccountToken(
      HubPrincipal caller, UUID accountId, String name, Duration ttl, List<String> scopes) {
    ServiceAccountRow account =
        accounts
            .findById(caller.orgId(), accountId)
            .orElseThrow(() -> ApiException.notFound("service account " + accountId));
    if (account.disabledAt() != null) {
      throw ApiException.conflict(
          "service account '" + account.name() + "' is disabled; enable it before issuing tokens");
    }
    List<String> granted = scopes.isEmpty() ? account.scopes() : scopes;
    for (String s : granted) {
      if (!account.scopes().contains(s)) {
        throw ApiException.invalid(
            "scopes", "'" + s + "' is not one of the service account's scopes " + account.scopes());
      }
    }
    return mint(
        caller,
        TokenKind.SERVICE_ACCOUNT,
        null,
        accountId,
        name,
        ttl,
        granted,
        "service_account.token.created",
        "service_account");
  }

  @Transactional(readOnly = true)
  public List<ApiTokenRow> serviceAccountTokens(UUID orgId, UUID accountId) {
    return tokens.listForServiceAccount(orgId, accountId);
  }

  /**
   * A member's tokens, live and past. Members see their own; seeing someone else's takes
   * members:write.
   */
  @Transactional(readOnly = true)
  public List<ApiTokenRow> memberTokens(HubPrincipal caller, UUID memberId) {
    requireManages(caller, memberId, "see the tokens of");
    return tokens.listForMember(caller.orgId(), memberId);
  }

  /**
   * Revokes one of a member's tokens. It stops working at once: every request, Git fetch and stream
   * authenticates its token again. Revoking a token that is already revoked changes nothing.
   */
  @Transactional
  public ApiTokenRow revokeMemberToken(HubPrincipal caller, UUID memberId, UUID tokenId) {
    requireManages(caller, memberId, "revoke the tokens of");
    ApiTokenRow token =
        tokens
            .findById(caller.orgId(), tokenId)
            .filter(t -> memberId.equals(t.memberId()))
            .orElseThrow(() -> ApiException.notFound("token " + tokenId));
    return revoke(caller, token, "member.token.revoked", "member", memberId);
  }

  /**
   * Removes a member: their API tokens and SSO sessions are revoked in the same transaction, and
   * they no longer appear among the members. Owners are removed only by owners, and the last owner
   * stays.
   */
  @Transactional
  public void removeMember(HubPrincipal caller, UUID memberId) {
    MemberRow member =
        members
            .findById(caller.orgId(), memberId)
            .orElseThrow(() -> ApiException.notFound("member " + memberId));
    Role role = Role.parse(member.role()).orElse(Role.VIEWER);
    if (role == Role.OWNER) {
      if (caller.role() != Role.OWNER) {
        throw ApiException.forbidden("only an owner can remove an owner");
      }
      if (members.countWithRole(caller.orgId(), Role.OWNER.wireName()) <= 1) {
        throw ApiException.conflict(
            "'" + member.email() + "' is the organization's last owner; make another owner first");
      }
    }
    Instant now = clock.instant();
    if (members.remove(caller.orgId(), memberId, now) != 1) {
      throw ApiException.notFound("member " + memberId);
    }
    int revokedTokens = tokens.revokeAllOfMember(caller.orgId(), memberId, caller.id(), now);
    int revokedSessions = sessions.revokeAll(caller.orgId(), memberId, now);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("email", member.email());
    d.put("role", member.role());
    d.put("tokensRevoked", revokedTokens);
    d.put("sessionsRevoked", revokedSessions);
    audit.record(
        caller.orgId(), caller.actor(), "member.removed", "member", memberId.toString(), d);
  }

  @Transactional(readOnly = true)
  public ServiceAccountRow serviceAccount(UUID orgId, UUID accountId) {
    return accounts
        .findById(orgId, accountId)
        .orElseThrow(() -> ApiException.notFound("service account " + accountId));
  }

  /**
   * Changes a service account. Null leaves a field as it is. Narrowing the scopes narrows every
   * token the account holds at once (a token never holds more than its account); widening them
   * takes holding the new scopes yourself. Disabling refuses all its tokens until it is enabled
   * again.
   */
  @Transactional
  public ServiceAccountRow updateServiceAccount(
      HubPrincipal caller,
      UUID accountId,
      String description,
      List<String> scopes,
      UUID ownerId,
      Boolean disabled) {
    ServiceAccountRow before = serviceAccount(caller.orgId(), accountId);
    if (scopes != null) {
      for (String scope : scopes) {
        if (!before.scopes().contains(scope)
            && !caller.can(Permission.fromScope(scope).orElseThrow())) {
          throw ApiException.forbidden(
              "you cannot grant the '" + scope + "' scope: you do not hold it yourself");
        }
      }
    }
    if (ownerId != null && members.findById(caller.orgId(), ownerId).isEmpty()) {
      throw ApiException.invalid("ownerId", "is not a member of this organization");
    }
    Instant disabledAt =
        disabled == null
            ? before.disabledAt()
            : disabled
                ? (before.disabledAt() != null ? before.disabledAt() : clock.instant())
                : null;
    ServiceAccountRow after =
        new ServiceAccountRow(
            before.id(),
            before.orgId(),
            before.name(),
            description == null ? before.description() : description,
            scopes == null ? before.scopes() : scopes,
            before.createdBy(),
            before.createdAt(),
            ownerId == null ? before.ownerMemberId() : ownerId,
            disabledAt,
            before.createdByAccount());
    accounts.update(after);
    Map<String, Object> d = new LinkedHashMap<>();
    if (!after.description().equals(before.description())) {
      d.put("description", Map.of("from", before.description(), "to", after.description()));
    }
    if (!after.scopes().equals(before.scopes())) {
      d.put("scopes", Map.of("from", before.scopes(), "to", after.scopes()));
    }
    if (!Objects.equals(after.ownerMemberId(), before.ownerMemberId())) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("from", before.ownerMemberId() == null ? null : before.ownerMemberId().toString());
      o.put("to", after.ownerMemberId().toString());
      d.put("owner", o);
    }
    if ((after.disabledAt() == null) != (before.disabledAt() == null)) {
      d.put("disabled", after.disabledAt() != null);
    }
    if (!d.isEmpty()) {
      audit.record(
          caller.orgId(),
          caller.actor(),
          "service_account.updated",
          "service_account",
          accountId.toString(),
          d);
    }
    return after;
  }

  /** Revokes one of a service account's tokens; it stops working at once. */
  @Transactional
  public ApiTokenRow revokeServiceAccountToken(HubPrincipal caller, UUID accountId, UUID tokenId) {
    serviceAccount(caller.orgId(), accountId);
    ApiTokenRow token =
        tokens
            .findById(caller.orgId(), tokenId)
            .filter(t -> accountId.equals(t.serviceAccountId()))
            .orElseThrow(() -> ApiException.notFound("token " + tokenId));
    return revoke(caller, token, "service_account.token.revoked", "service_account", accountId);
  }

  private ApiTokenRow revoke(
      HubPrincipal caller, ApiTokenRow token, String action, String targetType, UUID target) {
    if (token.revokedAt() != null) {
      return token;
    }
    tokens.revoke(caller.orgId(), token.id(), caller.id(), clock.instant());
    audit.record(
        caller.orgId(), caller.actor(), action, targetType, target.toString(), tokenDetails(token));
    return tokens.findById(caller.orgId(), token.id()).orElseThrow();
  }

  /**
   * Refuses a caller who is neither the member nor allowed to manage them (members:write, and only
   * owners for owners). An unknown member is a 404.
   */
  private void requireManages(HubPrincipal caller, UUID memberId, String what) {
    MemberRow member =
        members
            .findById(caller.orgId(), memberId)
            .orElseThrow(() -> ApiException.notFound("member " + memberId));
    if (memberId.equals(caller.memberId())) {
      return;
    }
    if (!caller.can(Permission.MEMBERS_WRITE)) {
      throw ApiException.forbidden(
          "to " + what + " another member you need the 'members:write' permission");
    }
    if (Role.parse(member.role()).orElse(Role.VIEWER) == Role.OWNER
        && caller.role() != Role.OWNER) {
      throw ApiException.forbidden("only an owner can " + what + " an owner");
    }
  }

  /** Issues an API token for a member or a service account, stores its hash and audits it. */
  private CreatedToken mint(
      HubPrincipal caller,
      TokenKind kind,
      UUID memberId,
      UUID accountId,
      String name,
      Duration ttl,
      List<String> scopes,
      String action,
      String targetType) {
    Instant now = clock.instant();
    Tokens.IssuedToken token = Tokens.issue(kind);
    ApiTokenRow row =
        ApiTokenRow.issued(
            UUID.randomUUID(),
            caller.orgId(),
            memberId,
            accountId,
            name,
            token.hash(),
            scopes,
            caller.memberId(),
            now,
            ttl == null ? null : now.plus(ttl));
    tokens.insert(row);
    UUID target = memberId != null ? memberId : accountId;
    audit.record(
        caller.orgId(), caller.actor(), action, targetType, target.toString(), tokenDetails(row));
    return new CreatedToken(row, token.value());
  }

  private static Map<String, Object> tokenDetails(ApiTokenRow row) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("tokenId", row.id().toString());
    d.put("name", row.name());
    d.put("scopes", row.scopes());
    d.put("expiresAt", row.expiresAt() == null ? null : row.expiresAt().toString());
    return d;
  }
}
