package dev.gitopshq.hub.approvalpolicy;

import dev.gitopshq.activities.approvalpolicy.ApprovalPolicyMapper;
import dev.gitopshq.activities.approvalpolicy.ApprovalPolicyResolver;
import dev.gitopshq.activities.approvalpolicy.ApprovalPolicyRow;
import dev.gitopshq.activities.approvalpolicy.PolicyInForce;
import dev.gitopshq.activities.approvalpolicy.Precedence;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.delivery.DeliveryJson;
import dev.gitopshq.hub.approvalpolicy.ApprovalPolicyRequests.Rules;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.team.Access;
import dev.gitopshq.hub.web.ApiError;
import dev.gitopshq.hub.web.ApiException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * An organization's approval policies: read, created, replaced and deleted with an audit entry in
 * one transaction, after the conflict check; and the cluster's own policy behind the older {@code
 * /api/v2/clusters/{id}/approval-policy}.
 */
@Service
public class ApprovalPolicyService {
  private final ApprovalPolicyMapper policies;
  private final ApprovalPolicyResolver resolver;
  private final ClusterMapper clusters;
  private final AuditLog audit;
  private final Clock clock;
  private final Access access;

  public ApprovalPolicyService(
      ApprovalPolicyMapper policies,
      ApprovalPolicyResolver resolver,
      ClusterMapper clusters,
      AuditLog audit,
      Clock clock,
      Access access) {
    this.access = access;
    this.policies = policies;
    this.resolver = resolver;
    this.clusters = clusters;
    this.audit = audit;
    this.clock = clock;
  }

  /** A policy's attachments, validated. */
  public record Attachments(List<String> clusters, LabelSelector selector) {}

  @Transactional(readOnly = true)
  public List<ApprovalPolicyRow> list(HubPrincipal caller) {
    return policies.list(caller.orgId());
  }

  /** The policy; another organization's (or none) is a 404. */
  @Transactional(readOnly = true)
  public ApprovalPolicyRow get(HubPrincipal caller, String name) {
    return policies
        .find(caller.orgId(), name)
        .orElseThrow(() -> ApiException.notFound("approval policy " + name));
  }

  /**
   * The current clusters each policy is in force for, by policy name: for a member or viewer, only
   * the clusters their teams' grants reach (the policy is resolved against every cluster all the
   * same).
   */
  @Transactional(readOnly = true)
  public Map<String, List<GovernedCluster>> governed(HubPrincipal caller) {
    List<ClusterRow> all = clusters.list(caller.orgId(), Map.of());
    Set<UUID> reached =
        all.stream()
            .filter(c -> access.clusterRole(caller, c).isPresent())
            .map(ClusterRow::id)
            .collect(Collectors.toSet());
    Map<String, List<GovernedCluster>> out = new LinkedHashMap<>();
    resolver
        .inForce(caller.orgId(), all)
        .forEach(
            (id, p) ->
                p.filter(f -> reached.contains(id))
                    .ifPresent(
                        f ->
                            out.computeIfAbsent(f.policy().name(), k -> new ArrayList<>())
                                .add(
                                    new GovernedCluster(
                                        all.stream()
                                            .filter(c -> c.id().equals(id))
                                            .findFirst()
                                            .orElseThrow()
                                            .name(),
                                        f.attachedBy(),
                                        f.selector()))));
    return out;
  }

  /** A cluster a policy governs, and how it is attached. */
  public record GovernedCluster(String cluster, String attachedBy, String selector) {}

  @Transactional
  public ApprovalPolicyRow create(
      HubPrincipal caller, String name, String description, Rules rules, Attachments att) {
    policies.lock(caller.orgId());
    if (policies.find(caller.orgId(), name).isPresent()) {
      throw ApiException.conflict("approval policy " + name + " already exists");
    }
    ApprovalPolicyRow row = row(caller, UUID.randomUUID(), name, description, rules, att, null);
    refuseConflicts(caller, row);
    policies.insert(row);
    Map<String, Object> d = details(row, rules);
    audit.record(
        caller.orgId(), caller.actor(), "approval_policy.created", "approval_policy", name, d);
    return get(caller, name);
  }

  @Transactional
  public ApprovalPolicyRow update(
      HubPrincipal caller, String name, String description, Rules rules, Attachments att) {
    policies.lock(caller.orgId());
    ApprovalPolicyRow before = get(caller, name);
    ApprovalPolicyRow row = row(caller, before.id(), name, description, rules, att, before);
    refuseConflicts(caller, row);
    policies.update(row);
    audit.record(
        caller.orgId(),
        caller.actor(),
        "approval_policy.updated",
        "approval_policy",
        name,
        details(row, rules));
    auditAttachment(caller, before, row);
    return get(caller, name);
  }

  @Transactional
  public void delete(HubPrincipal caller, String name) {
    policies.lock(caller.orgId());
    ApprovalPolicyRow before = get(caller, name);
    policies.delete(caller.orgId(), before.id());
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("clusters", before.clusters());
    d.put("selector", before.selector() == null ? null : before.selector().describe());
    audit.record(
        caller.orgId(), caller.actor(), "approval_policy.deleted", "approval_policy", name, d);
  }

  // ---- the cluster's own policy (GET|PUT /api/v2/clusters/{id}/approval-policy) -------------

  /** The policy attached to the cluster by name, if any; another organization's cluster is 404. */
  @Transactional(readOnly = true)
  public Optional<ApprovalPolicyRow> own(HubPrincipal caller, UUID clusterId) {
    ClusterRow cluster = cluster(caller, clusterId);
    return policies.naming(caller.orgId(), cluster.name()).stream().findFirst();
  }

  /**
   * Replaces the rules of the policy attached to the cluster by name, or creates {@code
   * cluster-<name>} attached to it by name when there is none; audits {@code
   * cluster.approval_policy.updated} as before, and the policy's own entry.
   */
  @Transactional
  public ApprovalPolicyRow saveOwn(HubPrincipal caller, UUID clusterId, Rules rules) {
    ClusterRow cluster = cluster(caller, clusterId);
    policies.lock(caller.orgId());
    Optional<ApprovalPolicyRow> own =
        policies.naming(caller.orgId(), cluster.name()).stream().findFirst();
    ApprovalPolicyRow saved =
        own.isPresent()
            ? update(
                caller,
                own.get().name(),
                own.get().description(),
                rules,
                new Attachments(own.get().clusters(), own.get().selector()))
            : create(
                caller,
                ownName(caller, cluster),
                "The approval settings of cluster " + cluster.name() + ".",
                rules,
                new Attachments(List.of(cluster.name()), null));
    Map<String, Object> d = rules.details();
    d.put("policy", saved.name());
    audit.record(
        caller.orgId(),
        caller.actor(),
        "cluster.approval_policy.updated",
        "cluster",
        clusterId.toString(),
        d);
    return saved;
  }

  /**
   * {@code cluster-<name>}, as the V50 migration names them: a name of more than 55 characters is
   * cut to 46 and given 8 hex characters of the cluster's id. Should that name be taken, the id's
   * characters are added.
   */
  static String ownName(ClusterRow cluster) {
    String n = cluster.name();
    if (n.length() <= 55) {
      return "cluster-" + n;
    }
    return "cluster-" + trimDashes(n.substring(0, 46)) + "-" + md5(cluster.id()).substring(0, 8);
  }

  private String ownName(HubPrincipal caller, ClusterRow cluster) {
    String name = ownName(cluster);
    if (policies.find(caller.orgId(), name).isEmpty()) {
      return name;
    }
    String base = cluster.name().length() > 46 ? cluster.name().substring(0, 46) : cluster.name();
    return "cluster-" + trimDashes(base) + "-" + md5(cluster.id()).substring(0, 8);
  }

  private static String trimDashes(String s) {
    return s.replaceAll("-+$", "");
  }

  private static String md5(UUID id) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("MD5")
                  .digest(id.toString().getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---- resolution ---------------------------------------------------------------------------

  public Optional<PolicyInForce> inForce(ClusterRow cluster) {
    return resolver.inForce(cluster);
  }

  public Map<UUID, Optional<PolicyInForce>> inForce(UUID orgId, List<ClusterRow> clusters) {
    return resolver.inForce(orgId, clusters);
  }

  // ---- helpers ------------------------------------------------------------------------------

  private ClusterRow cluster(HubPrincipal caller, UUID id) {
    return clusters
        .findById(caller.orgId(), id)
        .orElseThrow(() -> ApiException.notFound("cluster " + id));
  }

  private ApprovalPolicyRow row(
      HubPrincipal caller,
      UUID id,
      String name,
      String description,
      Rules r,
      Attachments att,
      ApprovalPolicyRow before) {
    var now = clock.instant();
    return new ApprovalPolicyRow(
        id,
        caller.orgId(),
        name,
        description == null ? "" : description,
        r.requireApproval(),
        r.autoApprove(),
        r.requiredApprovers(),
        r.approverRoles(),
        r.approverTeams(),
        r.breakGlassAllowed(),
        r.breakGlassRoles(),
        att.clusters(),
        att.selector() == null ? null : DeliveryJson.write(att.selector()),
        before == null ? caller.name() : before.createdBy(),
        before == null ? now : before.createdAt(),
        caller.name(),
        now);
  }

  /**
   * 400 when the saved policy would share a cluster with another equally specific attachment: the
   * same cluster name, or selectors with as many requirements both matching one of the
   * organization's current clusters. The error names the policies.
   */
  private void refuseConflicts(HubPrincipal caller, ApprovalPolicyRow saved) {
    List<ApprovalPolicyRow> all = new ArrayList<>();
    for (ApprovalPolicyRow p : policies.list(caller.orgId())) {
      if (!p.id().equals(saved.id())) {
        all.add(p);
      }
    }
    all.add(saved);
    List<Precedence.Target> targets =
        clusters.list(caller.orgId(), Map.of()).stream()
            .map(ApprovalPolicyResolver::target)
            .toList();
    List<Precedence.Conflict> conflicts = Precedence.conflicts(all, saved, targets);
    if (!conflicts.isEmpty()) {
      throw ApiException.invalid(
          conflicts.stream()
              .map(
                  c ->
                      new ApiError.FieldError(
                          Objects.equals(c.attachedBy(), PolicyInForce.BY_NAME)
                              ? "clusters"
                              : "selector",
                          c.message()))
              .distinct()
              .toList());
    }
  }

  private static Map<String, Object> details(ApprovalPolicyRow row, Rules rules) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("description", row.description());
    d.putAll(rules.details());
    d.put("clusters", row.clusters());
    d.put("selector", row.selector() == null ? null : row.selector().describe());
    return d;
  }

  /** {@code approval_policy.attached} when the attachments changed, with before and after. */
  private void auditAttachment(
      HubPrincipal caller, ApprovalPolicyRow before, ApprovalPolicyRow after) {
    if (before.clusters().equals(after.clusters())
        && Objects.equals(before.selector(), after.selector())) {
      return;
    }
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("clustersBefore", before.clusters());
    d.put("clusters", after.clusters());
    d.put("selectorBefore", before.selector() == null ? null : before.selector().describe());
    d.put("selector", after.selector() == null ? null : after.selector().describe());
    audit.record(
        caller.orgId(),
        caller.actor(),
        "approval_policy.attached",
        "approval_policy",
        after.name(),
        d);
  }
}
