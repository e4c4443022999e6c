package dev.gitopshq.hub.member;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.identity.Role;
import dev.gitopshq.activities.store.ApiTokenMapper;
import dev.gitopshq.activities.store.ApiTokenRow;
import dev.gitopshq.activities.store.MemberMapper;
import dev.gitopshq.activities.store.MemberRow;
import dev.gitopshq.activities.store.ServiceAccountMapper;
import dev.gitopshq.activities.store.ServiceAccountRow;
import dev.gitopshq.activities.tokens.TokenKind;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Members, service accounts and API tokens. Every change is audited in its own transaction. */
@Service
public class PeopleService {
  private final MemberMapper members;
  private final ServiceAccountMapper accounts;
  private final ApiTokenMapper tokens;
  private final AuditLog audit;
  private final Clock clock;

  public PeopleService(
      MemberMapper members,
      ServiceAccountMapper accounts,
      ApiTokenMapper tokens,
      AuditLog audit,
      Clock clock) {
    this.members = members;
    this.accounts = accounts;
    this.tokens = tokens;
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
    audit.record(
        caller.orgId(),
        caller.actor(),
        "member.added",
        "member",
        row.id().toString(),
        Map.of("email", email, "name", name, "role", role.wireName(), "teams", teams));
    return row;
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
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("role", Map.of("from", before.role(), "to", next.wireName()));
    d.put("teams", Map.of("from", before.teams(), "to", nextTeams));
    audit.record(
        caller.orgId(), caller.actor(), "member.updated", "member", memberId.toString(), d);
    return members.findById(caller.orgId(), memberId).orElseThrow();
  }

  @Transactional(readOnly = true)
  public java.util.Optional<MemberRow> member(UUID orgId, UUID memberId) {
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
    ServiceAccountRow row =
        new ServiceAccountRow(
            UUID.randomUUID(),
            caller.orgId(),
            name,
            description,
            scopes,
            caller.memberId(),
            clock.instant());
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
        new ApiTokenRow(
            UUID.randomUUID(),
            caller.orgId(),
            memberId,
            accountId,
            name,
            token.hash(),
            scopes,
            caller.memberId(),
            now,
            ttl == null ? null : now.plus(ttl),
            null);
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
