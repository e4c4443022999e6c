package dev.gitopshq.hub.member;

import dev.gitopshq.activities.identity.ApiTokenRow;
import dev.gitopshq.activities.identity.MemberRow;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.identity.Role;
import dev.gitopshq.hub.features.Feature;
import dev.gitopshq.hub.features.PlanGuard;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** {@code /api/v2/members}: people, their roles and their API tokens. */
@RestController
@RequestMapping("/api/v2/members")
public class MemberController {
  private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s]+\\.[^@\\s]+");
  private final PeopleService people;
  private final Clock clock;
  private final PlanGuard plans;

  public MemberController(PeopleService people, Clock clock, PlanGuard plans) {
    this.people = people;
    this.clock = clock;
    this.plans = plans;
  }

  record CreateMember(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String email,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String name,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String role,
      List<String> teams) {}

  record UpdateMember(String role, List<String> teams) {}

  record MemberView(
      String id, String email, String name, String role, List<String> teams, Instant createdAt) {
    static MemberView of(MemberRow m) {
      return new MemberView(
          m.id().toString(), m.email(), m.name(), m.role(), m.teams(), m.createdAt());
    }
  }

  record MemberList(List<MemberView> items) {}

  record CreateToken(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String name,
      Integer expiresInDays,
      List<String> scopes) {}

  /**
   * A token's metadata; {@code token} is set only in the response that created it. {@code status}
   * is {@code active}, {@code expired} or {@code revoked}.
   */
  record TokenView(
      String id,
      String name,
      List<String> scopes,
      String status,
      Instant createdAt,
      String createdBy,
      Instant expiresAt,
      Instant lastUsedAt,
      Instant revokedAt,
      String revokedBy,
      String token) {
    static TokenView of(ApiTokenRow t, String plaintext, Instant now) {
      return new TokenView(
          t.id().toString(),
          t.name(),
          t.scopes(),
          t.status(now),
          t.createdAt(),
          t.createdBy() == null ? null : t.createdBy().toString(),
          t.expiresAt(),
          t.lastUsedAt(),
          t.revokedAt(),
          t.revokedBy(),
          plaintext);
    }
  }

  record TokenList(List<TokenView> items) {}

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  MemberView create(@RequestBody CreateMember body) {
    HubPrincipal caller = Authz.require(Permission.MEMBERS_WRITE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    Checks c = new Checks();
    if (body.email() == null
        || body.email().length() > 254
        || !EMAIL.matcher(body.email()).matches()) {
      c.fail("email", "must be an email address");
    }
    c.displayName("name", body.name(), 128, true);
    Role role = Role.parse(body.role()).orElse(null);
    if (role == null) {
      c.fail("role", "must be one of owner, admin, member, viewer");
    }
    List<String> teams = teams(c, body.teams());
    c.throwIfInvalid();
    if (!teams.isEmpty()) {
      plans.require(caller, Feature.TEAMS);
    }
    return MemberView.of(
        people.addMember(caller, body.email().toLowerCase(), body.name(), role, teams));
  }

  @PatchMapping("/{id}")
  MemberView update(@PathVariable UUID id, @RequestBody UpdateMember body) {
    HubPrincipal caller = Authz.require(Permission.MEMBERS_WRITE);
    if (body == null || (body.role() == null && body.teams() == null)) {
      throw ApiException.invalid("body", "give role and/or teams");
    }
    Checks c = new Checks();
    Role role = null;
    if (body.role() != null) {
      role = Role.parse(body.role()).orElse(null);
      if (role == null) {
        c.fail("role", "must be one of owner, admin, member, viewer");
      }
    }
    List<String> teams = body.teams() == null ? null : teams(c, body.teams());
    c.throwIfInvalid();
    if (teams != null && !teams.isEmpty()) {
      plans.require(caller, Feature.TEAMS);
    }
    return MemberView.of(people.updateMember(caller, id, role, teams));
  }

  /** Team names are RFC 1123 labels; duplicates collapse. */
  private static List<String> teams(Checks c, List<String> teams) {
    if (teams == null) {
      return List.of();
    }
    for (int i = 0; i < teams.size(); i++) {
      c.dnsLabel("teams[" + i + "]", teams.get(i));
    }
    return teams.stream().filter(Objects::nonNull).distinct().sorted().toList();
  }

  @GetMapping
  MemberList list() {
    HubPrincipal caller = Authz.require(Permission.MEMBERS_READ);
    return new MemberList(people.members(caller.orgId()).stream().map(MemberView::of).toList());
  }

  @PostMapping("/{id}/tokens")
  @ResponseStatus(HttpStatus.CREATED)
  TokenView createToken(@PathVariable UUID id, @RequestBody CreateToken body) {
    HubPrincipal caller = Authz.caller();
    if (!caller.isMember()) {
      throw ApiException.forbidden("service accounts cannot create member tokens");
    }
    TokenRequest req =
        TokenRequest.validate(
            body == null ? null : body.name(),
            body == null ? null : body.expiresInDays(),
            body == null ? null : body.scopes());
    PeopleService.CreatedToken t =
        people.createMemberToken(caller, id, req.name(), req.ttl(), req.scopes());
    return TokenView.of(t.row(), t.token(), clock.instant());
  }

  /** A member's tokens, newest last: their own, or anyone's with members:write. */
  @GetMapping("/{id}/tokens")
  TokenList tokens(@PathVariable UUID id) {
    HubPrincipal caller = Authz.caller();
    Instant now = clock.instant();
    return new TokenList(
        people.memberTokens(caller, id).stream().map(t -> TokenView.of(t, null, now)).toList());
  }

  /** Revokes a member's token; it is refused from the next request on. */
  @DeleteMapping("/{id}/tokens/{tokenId}")
  TokenView revokeToken(@PathVariable UUID id, @PathVariable UUID tokenId) {
    HubPrincipal caller = Authz.caller();
    return TokenView.of(people.revokeMemberToken(caller, id, tokenId), null, clock.instant());
  }

  /** Removes a member with all their tokens and sessions. */
  @DeleteMapping("/{id}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void remove(@PathVariable UUID id) {
    people.removeMember(Authz.require(Permission.MEMBERS_WRITE), id);
  }

  /** A validated token request, shared with service-account tokens. */
  record TokenRequest(String name, Duration ttl, List<String> scopes) {
    static TokenRequest validate(String name, Integer expiresInDays, List<String> scopes) {
      Checks c = new Checks();
      c.displayName("name", name, 128, true);
      if (expiresInDays != null && (expiresInDays < 1 || expiresInDays > 3650)) {
        c.fail("expiresInDays", "must be between 1 and 3650");
      }
      List<String> s = scopes == null ? List.of() : scopes;
      for (int i = 0; i < s.size(); i++) {
        if (s.get(i) == null || Permission.fromScope(s.get(i)).isEmpty()) {
          c.fail("scopes[" + i + "]", "is not a known scope");
        }
      }
      c.throwIfInvalid();
      return new TokenRequest(
          name, expiresInDays == null ? null : Duration.ofDays(expiresInDays), List.copyOf(s));
    }
  }
}
