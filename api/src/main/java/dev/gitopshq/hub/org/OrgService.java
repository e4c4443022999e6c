package dev.gitopshq.hub.org;

import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.identity.ApiTokenMapper;
import dev.gitopshq.activities.identity.ApiTokenRow;
import dev.gitopshq.activities.identity.MemberMapper;
import dev.gitopshq.activities.identity.MemberRow;
import dev.gitopshq.activities.identity.Role;
import dev.gitopshq.activities.org.OrgMapper;
import dev.gitopshq.activities.org.OrgRow;
import dev.gitopshq.activities.org.OrgSummary;
import dev.gitopshq.activities.tokens.TokenKind;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.hub.config.HubProperties;
import dev.gitopshq.hub.features.Plan;
import dev.gitopshq.hub.policy.PolicySync;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Creates organizations. An organization starts with its owner (who gets one API token, shown
 * once), the shipped policies as version 1, and nothing else: no clusters, projects or members of
 * any other organization are visible to it.
 */
@Service
public class OrgService {
  private final OrgMapper orgs;
  private final MemberMapper members;
  private final ApiTokenMapper tokens;
  private final PolicySync policies;
  private final AuditLog audit;
  private final HubProperties props;
  private final Clock clock;

  public OrgService(
      OrgMapper orgs,
      MemberMapper members,
      ApiTokenMapper tokens,
      PolicySync policies,
      AuditLog audit,
      HubProperties props,
      Clock clock) {
    this.orgs = orgs;
    this.members = members;
    this.tokens = tokens;
    this.policies = policies;
    this.audit = audit;
    this.props = props;
    this.clock = clock;
  }

  /** A new organization, its owner and the owner's token (the plaintext, shown once). */
  public record Created(OrgSummary org, MemberRow owner, ApiTokenRow token, String value) {
    @Override
    public String toString() {
      return "Created[org=" + org.slug() + ", owner=" + owner.email() + "]";
    }
  }

  @Transactional
  public Created create(
      HubPrincipal caller, String slug, String name, String ownerEmail, String ownerName) {
    Instant now = clock.instant();
    OrgRow org = new OrgRow(UUID.randomUUID(), slug, name, props.plan(), now);
    if (orgs.findBySlug(slug).isPresent()) {
      throw ApiException.conflict("an organization with slug '" + slug + "' already exists");
    }
    try {
      orgs.insert(org, caller.actor().type() + ":" + caller.id());
    } catch (DuplicateKeyException e) {
      throw ApiException.conflict("an organization with slug '" + slug + "' already exists");
    }
    MemberRow owner =
        new MemberRow(
            UUID.randomUUID(),
            org.id(),
            ownerEmail,
            ownerName,
            Role.OWNER.wireName(),
            List.of(),
            now);
    members.insert(owner);
    Tokens.IssuedToken token = Tokens.issue(TokenKind.PERSONAL);
    ApiTokenRow row =
        ApiTokenRow.issued(
            UUID.randomUUID(),
            org.id(),
            owner.id(),
            null,
            "first owner token",
            token.hash(),
            List.of(),
            null,
            now,
            null);
    tokens.insert(row);
    policies.seed(org.id());

    Map<String, Object> d = new LinkedHashMap<>();
    d.put("slug", slug);
    d.put("name", name);
    d.put("owner", ownerEmail);
    // Both organizations keep the record: the operator's of what it did, the new one's of its
    // beginning (the creator is named there, not a member of it).
    audit.record(caller.orgId(), caller.actor(), "org.created", "org", org.id().toString(), d);
    audit.record(org.id(), caller.actor(), "org.created", "org", org.id().toString(), d);
    audit.record(
        org.id(),
        Actor.system("orgs"),
        "member.added",
        "member",
        owner.id().toString(),
        Map.of(
            "email",
            ownerEmail,
            "name",
            ownerName,
            "role",
            "owner",
            "tokenId",
            row.id().toString()));
    if (TransactionSynchronizationManager.isSynchronizationActive()) {
      TransactionSynchronizationManager.registerSynchronization(
          new TransactionSynchronization() {
            @Override
            public void afterCommit() {
              policies.nudge();
            }
          });
    }
    return new Created(orgs.summary(org.id()).orElseThrow(), owner, row, token.value());
  }

  /**
   * Puts an organization on another plan (an instance admin's act): its feature gates follow at
   * once, request by request ({@code PlanGuard}); nothing already configured is removed. Audited as
   * {@code org.plan_changed} in the operator organization and in the organization changed.
   */
  @Transactional
  public OrgSummary setPlan(HubPrincipal caller, UUID id, Plan plan) {
    String before =
        orgs.setPlan(id, plan.wireName())
            .orElseThrow(() -> ApiException.notFound("organization " + id));
    if (!before.equals(plan.wireName())) {
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("from", before);
      d.put("to", plan.wireName());
      audit.record(caller.orgId(), caller.actor(), "org.plan_changed", "org", id.toString(), d);
      if (!caller.orgId().equals(id)) {
        audit.record(id, caller.actor(), "org.plan_changed", "org", id.toString(), d);
      }
    }
    return orgs.summary(id).orElseThrow();
  }

  /** The caller's own organization. */
  @Transactional(readOnly = true)
  public Optional<OrgRow> own(UUID orgId) {
    return orgs.findById(orgId);
  }

  @Transactional(readOnly = true)
  public List<OrgSummary> list() {
    return orgs.listAll();
  }

  /**
   * One organization: any of them for an instance admin, only their own for anyone else (another
   * organization is a 404, as for every other object).
   */
  @Transactional(readOnly = true)
  public OrgSummary get(HubPrincipal caller, UUID id, boolean instanceAdmin) {
    if (!instanceAdmin && !caller.orgId().equals(id)) {
      throw ApiException.notFound("organization " + id);
    }
    return orgs.summary(id).orElseThrow(() -> ApiException.notFound("organization " + id));
  }
}
