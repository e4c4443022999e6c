package dev.gitopshq.hub.team;

import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.identity.GrantRow;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.identity.TeamMemberRow;
import dev.gitopshq.activities.identity.TeamRow;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/teams} and {@code /api/v2/grants} (docs/api.md#teams-and-grants). Reading needs
 * members:read, every change members:write (admins and owners).
 */
@RestController
public class TeamController {
  static final int MAX_DESCRIPTION = 1000;
  static final Set<String> ROLES = Set.of("viewer", "member", "admin");
  static final Set<String> SCOPES = Set.of(GrantRow.PROJECT, GrantRow.PROJECTS, GrantRow.CLUSTERS);

  private final TeamService teams;

  public TeamController(TeamService teams) {
    this.teams = teams;
  }

  record TeamBody(String name, String description) {}

  record MemberBody(@Schema(requiredMode = Schema.RequiredMode.REQUIRED) String memberId) {}

  record GrantBody(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String teamId,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String role,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String scope,
      String projectId,
      LabelSelector selector) {}

  record TeamView(UUID id, String name, String description, int memberCount, Instant createdAt) {}

  record TeamMemberView(
      UUID memberId, String email, String name, String source, Instant createdAt) {
    static TeamMemberView of(TeamMemberRow r) {
      return new TeamMemberView(r.memberId(), r.email(), r.name(), r.source(), r.createdAt());
    }
  }

  record GrantView(
      UUID id,
      UUID teamId,
      String team,
      String role,
      String scope,
      UUID projectId,
      LabelSelector selector,
      String createdBy,
      Instant createdAt) {
    static GrantView of(GrantRow g) {
      return new GrantView(
          g.id(),
          g.teamId(),
          g.teamName(),
          g.role(),
          g.scope(),
          g.projectId(),
          g.selector(),
          g.createdBy(),
          g.createdAt());
    }
  }

  record TeamDetail(
      UUID id,
      String name,
      String description,
      Instant createdAt,
      List<TeamMemberView> members,
      List<GrantView> grants) {}

  record Items<T>(List<T> items) {}

  @GetMapping("/api/v2/teams")
  Items<TeamView> list() {
    HubPrincipal caller = Authz.require(Permission.MEMBERS_READ);
    return new Items<>(teams.list(caller.orgId()).stream().map(t -> view(caller, t)).toList());
  }

  @PostMapping("/api/v2/teams")
  @ResponseStatus(HttpStatus.CREATED)
  TeamDetail create(@RequestBody(required = false) TeamBody body) {
    HubPrincipal caller = Authz.require(Permission.MEMBERS_WRITE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    Checks c = new Checks();
    c.dnsLabel("name", body.name());
    c.displayName("description", body.description(), MAX_DESCRIPTION, false);
    c.throwIfInvalid();
    return detail(caller, teams.create(caller, body.name(), body.description()));
  }

  @GetMapping("/api/v2/teams/{id}")
  TeamDetail get(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.MEMBERS_READ);
    return detail(caller, teams.get(caller.orgId(), id));
  }

  @PatchMapping("/api/v2/teams/{id}")
  TeamDetail update(@PathVariable UUID id, @RequestBody(required = false) TeamBody body) {
    HubPrincipal caller = Authz.require(Permission.MEMBERS_WRITE);
    teams.get(caller.orgId(), id); // another organization's team is a 404 before the body
    if (body == null || (body.name() == null && body.description() == null)) {
      throw ApiException.invalid("body", "give name and/or description");
    }
    Checks c = new Checks();
    if (body.name() != null) {
      c.dnsLabel("name", body.name());
    }
    c.displayName("description", body.description(), MAX_DESCRIPTION, false);
    c.throwIfInvalid();
    return detail(caller, teams.update(caller, id, body.name(), body.description()));
  }

  @DeleteMapping("/api/v2/teams/{id}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void delete(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.MEMBERS_WRITE);
    teams.delete(caller, id);
  }

  @PostMapping("/api/v2/teams/{id}/members")
  TeamDetail addMember(@PathVariable UUID id, @RequestBody(required = false) MemberBody body) {
    HubPrincipal caller = Authz.require(Permission.MEMBERS_WRITE);
    teams.get(caller.orgId(), id);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    UUID member = uuid("memberId", body.memberId());
    teams.addMember(caller, id, member);
    return detail(caller, teams.get(caller.orgId(), id));
  }

  @DeleteMapping("/api/v2/teams/{id}/members/{memberId}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void removeMember(@PathVariable UUID id, @PathVariable UUID memberId) {
    HubPrincipal caller = Authz.require(Permission.MEMBERS_WRITE);
    teams.removeMember(caller, id, memberId);
  }

  @GetMapping("/api/v2/grants")
  Items<GrantView> grants(
      @RequestParam(required = false) UUID teamId, @RequestParam(required = false) UUID projectId) {
    HubPrincipal caller = Authz.require(Permission.MEMBERS_READ);
    return new Items<>(
        teams.grants(caller.orgId(), teamId, projectId).stream().map(GrantView::of).toList());
  }

  @PostMapping("/api/v2/grants")
  @ResponseStatus(HttpStatus.CREATED)
  GrantView grant(@RequestBody(required = false) GrantBody body) {
    HubPrincipal caller = Authz.require(Permission.MEMBERS_WRITE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    Checks c = new Checks();
    UUID team = null;
    if (body.teamId() == null) {
      c.fail("teamId", "is required");
    } else {
      team = parse(body.teamId());
      if (team == null) {
        c.fail("teamId", "must be a team id (a UUID)");
      }
    }
    if (body.role() == null || !ROLES.contains(body.role())) {
      c.fail("role", "must be one of viewer, member, admin");
    }
    UUID project = null;
    LabelSelector selector = null;
    if (body.scope() == null || !SCOPES.contains(body.scope())) {
      c.fail("scope", "must be one of project, projects, clusters");
    } else if (GrantRow.PROJECT.equals(body.scope())) {
      project = parse(body.projectId());
      if (project == null) {
        c.fail("projectId", "a project grant needs the project's id (a UUID)");
      }
      if (body.selector() != null) {
        c.fail("selector", "only a clusters grant has a selector");
      }
    } else if (GrantRow.PROJECTS.equals(body.scope())) {
      if (body.projectId() != null) {
        c.fail("projectId", "a grant on every project names no project");
      }
      if (body.selector() != null) {
        c.fail("selector", "only a clusters grant has a selector");
      }
    } else {
      if (body.projectId() != null) {
        c.fail("projectId", "a clusters grant names no project");
      }
      selector =
          body.selector() == null
              ? LabelSelector.EVERYTHING
              : c.selector("selector", body.selector());
    }
    c.throwIfInvalid();
    return GrantView.of(teams.grant(caller, team, body.role(), body.scope(), project, selector));
  }

  @DeleteMapping("/api/v2/grants/{id}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void revoke(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.MEMBERS_WRITE);
    teams.revoke(caller, id);
  }

  private TeamView view(HubPrincipal caller, TeamRow t) {
    return new TeamView(
        t.id(),
        t.name(),
        t.description(),
        teams.memberCount(caller.orgId(), t.id()),
        t.createdAt());
  }

  private TeamDetail detail(HubPrincipal caller, TeamRow t) {
    return new TeamDetail(
        t.id(),
        t.name(),
        t.description(),
        t.createdAt(),
        teams.members(caller.orgId(), t.id()).stream().map(TeamMemberView::of).toList(),
        teams.grants(caller.orgId(), t.id(), null).stream().map(GrantView::of).toList());
  }

  private static UUID uuid(String field, String value) {
    UUID id = parse(value);
    if (id == null) {
      throw ApiException.invalid(field, "must be a member id (a UUID)");
    }
    return id;
  }

  private static UUID parse(String value) {
    if (value == null) {
      return null;
    }
    try {
      return UUID.fromString(value);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
