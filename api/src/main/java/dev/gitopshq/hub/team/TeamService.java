package dev.gitopshq.hub.team;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.delivery.DeliveryJson;
import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.identity.GrantMapper;
import dev.gitopshq.activities.identity.GrantRow;
import dev.gitopshq.activities.identity.MemberMapper;
import dev.gitopshq.activities.identity.TeamMapper;
import dev.gitopshq.activities.identity.TeamMemberRow;
import dev.gitopshq.activities.identity.TeamRow;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.time.Clock;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Teams, their members and their grants. Every change is audited in its own transaction. */
@Service
public class TeamService {
  public static final String MANUAL = "manual";
  public static final String OIDC = "oidc";

  private final TeamMapper teams;
  private final GrantMapper grants;
  private final MemberMapper members;
  private final ProjectMapper projects;
  private final AuditLog audit;
  private final Clock clock;
  private final ApplicationEventPublisher events;

  public TeamService(
      TeamMapper teams,
      GrantMapper grants,
      MemberMapper members,
      ProjectMapper projects,
      AuditLog audit,
      Clock clock,
      ApplicationEventPublisher events) {
    this.events = events;
    this.teams = teams;
    this.grants = grants;
    this.members = members;
    this.projects = projects;
    this.audit = audit;
    this.clock = clock;
  }

  @Transactional(readOnly = true)
  public List<TeamRow> list(UUID orgId) {
    return teams.list(orgId);
  }

  @Transactional(readOnly = true)
  public TeamRow get(UUID orgId, UUID id) {
    return teams.findById(orgId, id).orElseThrow(() -> ApiException.notFound("team " + id));
  }

  @Transactional(readOnly = true)
  public List<TeamMemberRow> members(UUID orgId, UUID teamId) {
    return teams.members(orgId, teamId);
  }

  @Transactional(readOnly = true)
  public int memberCount(UUID orgId, UUID teamId) {
    return teams.memberCount(orgId, teamId);
  }

  @Transactional
  public TeamRow create(HubPrincipal caller, String name, String description) {
    if (teams.findByName(caller.orgId(), name).isPresent()) {
      throw ApiException.conflict("a team named '" + name + "' already exists");
    }
    TeamRow row =
        new TeamRow(
            UUID.randomUUID(),
            caller.orgId(),
            name,
            description == null ? "" : description,
            clock.instant());
    try {
      teams.insert(row);
    } catch (DuplicateKeyException e) {
      throw ApiException.conflict("a team named '" + name + "' already exists");
    }
    audit.record(
        caller.orgId(),
        caller.actor(),
        "team.created",
        "team",
        row.id().toString(),
        Map.of("name", name, "description", row.description()));
    return row;
  }

  /** Renames and/or describes a team; null leaves a field as it is. */
  @Transactional
  public TeamRow update(HubPrincipal caller, UUID id, String name, String description) {
    TeamRow before = get(caller.orgId(), id);
    String nextName = name == null ? before.name() : name;
    String nextDescription = description == null ? before.description() : description;
    if (!nextName.equals(before.name()) && teams.findByName(caller.orgId(), nextName).isPresent()) {
      throw ApiException.conflict("a team named '" + nextName + "' already exists");
    }
    teams.update(caller.orgId(), id, nextName, nextDescription);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("name", Map.of("from", before.name(), "to", nextName));
    d.put("description", Map.of("from", before.description(), "to", nextDescription));
    audit.record(caller.orgId(), caller.actor(), "team.updated", "team", id.toString(), d);
    return get(caller.orgId(), id);
  }

  /** Deletes a team with its memberships and grants. */
  @Transactional
  public void delete(HubPrincipal caller, UUID id) {
    TeamRow team = get(caller.orgId(), id);
    List<GrantRow> its = grants.list(caller.orgId(), id, null);
    teams.delete(caller.orgId(), id);
    audit.record(
        caller.orgId(),
        caller.actor(),
        "team.deleted",
        "team",
        id.toString(),
        Map.of("name", team.name(), "grants", its.size()));
    events.publishEvent(new AccessChanged(caller.orgId()));
  }

  /** Puts a member in the team by hand (a no-op when they are in it by hand already). */
  @Transactional
  public void addMember(HubPrincipal caller, UUID teamId, UUID memberId) {
    TeamRow team = get(caller.orgId(), teamId);
    var member =
        members
            .findById(caller.orgId(), memberId)
            .orElseThrow(() -> ApiException.notFound("member " + memberId));
    if (teams.addMember(caller.orgId(), teamId, memberId, MANUAL) > 0) {
      audit.record(
          caller.orgId(),
          caller.actor(),
          "team.member.added",
          "team",
          teamId.toString(),
          Map.of("team", team.name(), "member", memberId.toString(), "email", member.email()));
    }
  }

  /**
   * Takes a member's manual membership away. A membership from the SSO group mapping stays until
   * their next sign-in without the group.
   */
  @Transactional
  public void removeMember(HubPrincipal caller, UUID teamId, UUID memberId) {
    TeamRow team = get(caller.orgId(), teamId);
    if (teams.removeMember(caller.orgId(), teamId, memberId, MANUAL) == 0) {
      throw ApiException.notFound("member " + memberId + " of team " + team.name());
    }
    audit.record(
        caller.orgId(),
        caller.actor(),
        "team.member.removed",
        "team",
        teamId.toString(),
        Map.of("team", team.name(), "member", memberId.toString()));
    events.publishEvent(new AccessChanged(caller.orgId()));
  }

  /**
   * Makes the member's {@code source} memberships exactly {@code names}, creating teams that do not
   * exist yet; memberships from the other source are left alone. Runs in the caller's transaction
   * (no audit of its own: the caller audits the change it is part of).
   *
   * @return whether anything changed
   */
  @Transactional
  public boolean syncMemberships(
      UUID orgId, UUID memberId, Collection<String> names, String source) {
    TreeSet<String> want = new TreeSet<>(names);
    List<String> have = teams.teamNames(orgId, memberId, source);
    boolean changed = false;
    for (String name : have) {
      if (!want.contains(name)) {
        teams
            .findByName(orgId, name)
            .ifPresent(t -> teams.removeMember(orgId, t.id(), memberId, source));
        changed = true;
      }
    }
    for (String name : want) {
      if (have.contains(name)) {
        continue;
      }
      teams.insertIfAbsent(new TeamRow(UUID.randomUUID(), orgId, name, "", clock.instant()));
      TeamRow t = teams.findByName(orgId, name).orElseThrow();
      teams.addMember(orgId, t.id(), memberId, source);
      changed = true;
    }
    teams.refresh(orgId, memberId);
    if (changed) {
      events.publishEvent(new AccessChanged(orgId));
    }
    return changed;
  }

  /** The names of the teams the member is in through {@code source}. */
  @Transactional(readOnly = true)
  public List<String> names(UUID orgId, UUID memberId, String source) {
    return teams.teamNames(orgId, memberId, source);
  }

  /** Sets the member's teams column from their memberships again. */
  @Transactional
  public void refresh(UUID orgId, UUID memberId) {
    teams.refresh(orgId, memberId);
  }

  // ---- grants ---------------------------------------------------------------------------------

  @Transactional(readOnly = true)
  public List<GrantRow> grants(UUID orgId, UUID teamId, UUID projectId) {
    return grants.list(orgId, teamId, projectId);
  }

  /** A new grant; the team and project must be the organization's (404 otherwise). */
  @Transactional
  public GrantRow grant(
      HubPrincipal caller,
      UUID teamId,
      String role,
      String scope,
      UUID projectId,
      LabelSelector selector) {
    TeamRow team = get(caller.orgId(), teamId);
    if (projectId != null && projects.findById(caller.orgId(), projectId).isEmpty()) {
      throw ApiException.notFound("project " + projectId);
    }
    GrantRow row =
        new GrantRow(
            UUID.randomUUID(),
            caller.orgId(),
            teamId,
            team.name(),
            role,
            scope,
            projectId,
            selector == null ? null : DeliveryJson.write(selector),
            caller.id(),
            clock.instant());
    grants.insert(row);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("team", team.name());
    d.put("role", role);
    d.put("scope", scope);
    if (projectId != null) {
      d.put("projectId", projectId.toString());
    }
    if (selector != null) {
      d.put("selector", selector.describe());
    }
    audit.record(caller.orgId(), caller.actor(), "grant.created", "grant", row.id().toString(), d);
    return grants.findById(caller.orgId(), row.id()).orElseThrow();
  }

  @Transactional
  public void revoke(HubPrincipal caller, UUID id) {
    GrantRow g =
        grants.findById(caller.orgId(), id).orElseThrow(() -> ApiException.notFound("grant " + id));
    grants.delete(caller.orgId(), id);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("team", g.teamName());
    d.put("role", g.role());
    d.put("scope", g.scope());
    if (g.projectId() != null) {
      d.put("projectId", g.projectId().toString());
    }
    audit.record(caller.orgId(), caller.actor(), "grant.deleted", "grant", id.toString(), d);
    events.publishEvent(new AccessChanged(caller.orgId()));
  }
}
