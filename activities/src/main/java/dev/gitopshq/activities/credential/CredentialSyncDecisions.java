package dev.gitopshq.activities.credential;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.org.OrgMapper;
import dev.gitopshq.activities.org.OrgRow;
import dev.gitopshq.activities.policy.PolicyEvaluation;
import dev.gitopshq.activities.policy.PolicyEvaluationException;
import dev.gitopshq.activities.policy.PolicyService;
import dev.gitopshq.activities.policy.UnknownPolicyException;
import dev.gitopshq.evidence.CanonicalJson;
import dev.gitopshq.evidence.Sha256;
import dev.gitopshq.workflows.credential.CredentialSyncActivities;
import dev.gitopshq.workflows.credential.SyncDecision;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.springframework.transaction.support.TransactionOperations;

/**
 * The policy side of a credential sync ({@link CredentialSyncActivities}): one {@code
 * gitopshq.credentials} evaluation per credential assigned to the cluster, with the credential's
 * name and type (never its value) and its target namespaces, and the targets stamped with the
 * round's decision. Fails closed: a policy that is missing or gives no usable decision denies every
 * target it was asked about, with that as the reason; while OPA cannot answer the activity throws
 * and nothing is sent.
 */
public class CredentialSyncDecisions implements CredentialSyncActivities {
  /** The policy every credential sync decision comes from. */
  public static final String POLICY = "credentials";

  /** The audit action of a target the policy denied. */
  public static final String DENIED = "credential.sync_denied";

  private static final int MAX_ERROR = 1_000;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final CredentialMapper credentials;
  private final ClusterMapper clusters;
  private final OrgMapper orgs;
  private final PolicyService policies;
  private final AuditLog audit;
  private final TransactionOperations tx;
  private final Clock clock;

  public CredentialSyncDecisions(
      CredentialMapper credentials,
      ClusterMapper clusters,
      OrgMapper orgs,
      PolicyService policies,
      AuditLog audit,
      TransactionOperations tx,
      Clock clock) {
    this.credentials = credentials;
    this.clusters = clusters;
    this.orgs = orgs;
    this.policies = policies;
    this.audit = audit;
    this.tx = tx;
    this.clock = clock;
  }

  /** One credential's verdict: its namespaces' reasons, empty when allowed. */
  private record Verdict(
      Map<String, List<String>> reasons, String policy, Integer version, String sha256, String in) {
    boolean denies(String namespace) {
      return !reasons.getOrDefault(namespace, List.of()).isEmpty();
    }
  }

  @Override
  public SyncDecision decide(
      String orgId, String clusterId, String syncId, String cause, String actor) {
    UUID org = UUID.fromString(orgId);
    UUID id = UUID.fromString(clusterId);
    UUID decision = UUID.fromString(syncId);
    ClusterRow cluster = clusters.findById(org, id).orElse(null);
    OrgRow organization = orgs.findById(org).orElse(null);
    if (cluster == null || organization == null) {
      return new SyncDecision(0, List.of());
    }
    Instant now = clock.instant();
    Map<UUID, List<AssignmentRow>> byCredential = new LinkedHashMap<>();
    for (AssignmentRow a : credentials.onCluster(org, id)) {
      byCredential.computeIfAbsent(a.credentialId(), k -> new ArrayList<>()).add(a);
    }
    // Evaluated before the transaction: OPA is not held up by a database lock, nor the other way.
    Map<UUID, Verdict> verdicts = new LinkedHashMap<>();
    for (Map.Entry<UUID, List<AssignmentRow>> e : byCredential.entrySet()) {
      List<String> namespaces = e.getValue().stream().map(AssignmentRow::namespace).toList();
      JsonNode input = input(organization, cluster, e.getValue().get(0), namespaces, cause, actor);
      verdicts.put(e.getKey(), verdict(org, namespaces, input, now));
    }
    List<String> denied = new ArrayList<>();
    List<String> sendable = new ArrayList<>();
    int[] allowed = {0};
    tx.executeWithoutResult(
        s -> {
          for (Map.Entry<UUID, List<AssignmentRow>> e : byCredential.entrySet()) {
            Verdict v = verdicts.get(e.getKey());
            List<String> newlyDenied = new ArrayList<>();
            for (AssignmentRow a : e.getValue()) {
              String error = v.denies(a.namespace()) ? error(v, a.namespace()) : null;
              credentials.decide(
                  org, a.credentialId(), id, a.namespace(), decision, error != null, error, now);
              if (error == null) {
                allowed[0]++;
                if (!sendable.contains(a.credentialId().toString())) {
                  sendable.add(a.credentialId().toString());
                }
                continue;
              }
              denied.add(a.credentialName() + "/" + a.namespace());
              if (!a.policyDenied() || !Objects.equals(a.error(), error)) {
                newlyDenied.add(a.namespace());
              }
            }
            if (!newlyDenied.isEmpty()) {
              auditDenied(cluster, e.getValue().get(0), v, newlyDenied, cause, actor, syncId);
            }
          }
        });
    return new SyncDecision(allowed[0], denied, sendable);
  }

  @Override
  public String streamHolder(String orgId, String clusterId) {
    return clusters
        .findById(UUID.fromString(orgId), UUID.fromString(clusterId))
        .map(ClusterRow::connectedReplica)
        .orElse(null);
  }

  /** The input document of {@code gitopshq.credentials} (docs/policies.md describes it). */
  static JsonNode input(
      OrgRow org,
      ClusterRow cluster,
      AssignmentRow credential,
      List<String> namespaces,
      String cause,
      String actor) {
    ObjectNode in = JSON.createObjectNode();
    ObjectNode o = in.putObject("organization");
    o.put("id", org.id().toString());
    o.put("slug", org.slug());
    o.put("name", org.name());
    ObjectNode c = in.putObject("cluster");
    c.put("id", cluster.id().toString());
    c.put("name", cluster.name());
    c.put("environment", cluster.environment());
    c.set("labels", JSON.valueToTree(cluster.effectiveLabels()));
    ObjectNode k = in.putObject("credential");
    k.put("id", credential.credentialId().toString());
    k.put("name", credential.credentialName());
    k.put("type", credential.credentialType());
    in.set("namespaces", JSON.valueToTree(namespaces));
    in.put("cause", cause == null ? "" : cause);
    in.put("actor", actor == null ? "system" : actor);
    return in;
  }

  private Verdict verdict(UUID org, List<String> namespaces, JsonNode input, Instant now) {
    ((ObjectNode) input).put("time", now.toString());
    String inputSha256 = Sha256.hex(CanonicalJson.bytes(input));
    PolicyEvaluation e;
    try {
      e = policies.evaluate(org, POLICY, input);
    } catch (UnknownPolicyException ex) {
      return all(
          namespaces,
          "the organization has no credentials policy, so no credential is synced (publish one:"
              + " docs/policies.md)",
          inputSha256);
    } catch (PolicyEvaluationException ex) {
      return all(
          namespaces,
          "the credentials policy gave no usable decision: " + ex.getMessage(),
          inputSha256);
    }
    return new Verdict(
        reasons(e, namespaces), e.policyName(), e.policyVersion(), e.policySha256(), inputSha256);
  }

  /**
   * Reads a {@code gitopshq.credentials} decision: each namespace asked about, with the reasons it
   * is denied (empty: allowed). Fails closed: a namespace the decision lists in neither {@code
   * allowed} nor {@code denied}, or in {@code denied} without a reason, is denied.
   */
  static Map<String, List<String>> reasons(PolicyEvaluation e, List<String> namespaces) {
    String where = "the credentials policy (version " + e.policyVersion() + ")";
    JsonNode d = e.decision();
    Map<String, List<String>> reasons = new LinkedHashMap<>();
    JsonNode allowedNode = d.path("allowed");
    JsonNode deniedNode = d.path("denied");
    for (String ns : namespaces) {
      List<String> why = new ArrayList<>();
      JsonNode r = deniedNode.isObject() ? deniedNode.get(ns) : null;
      if (r != null && !r.isNull()) {
        if (r.isArray()) {
          r.forEach(x -> why.add(x.isTextual() ? x.asText() : x.toString()));
        }
        if (why.isEmpty()) {
          why.add(where + " denied namespace " + ns + " without a reason");
        }
      } else if (!contains(allowedNode, ns)) {
        why.add(where + " gave no decision for namespace " + ns);
      }
      reasons.put(ns, why);
    }
    return reasons;
  }

  private static boolean contains(JsonNode array, String value) {
    if (array == null || !array.isArray()) {
      return false;
    }
    for (JsonNode n : array) {
      if (n.isTextual() && n.asText().equals(value)) {
        return true;
      }
    }
    return false;
  }

  private static Verdict all(List<String> namespaces, String reason, String inputSha256) {
    Map<String, List<String>> reasons = new LinkedHashMap<>();
    namespaces.forEach(ns -> reasons.put(ns, List.of(reason)));
    return new Verdict(reasons, POLICY, null, null, inputSha256);
  }

  /** What the target's status says: the policy's reasons, bounded. */
  private static String error(Verdict v, String namespace) {
    String text =
        "denied by policy: " + String.join("; ", v.reasons().getOrDefault(namespace, List.of()));
    return text.length() <= MAX_ERROR ? text : text.substring(0, MAX_ERROR - 3) + "...";
  }

  private void auditDenied(
      ClusterRow cluster,
      AssignmentRow credential,
      Verdict v,
      List<String> namespaces,
      String cause,
      String actor,
      String syncId) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("name", credential.credentialName());
    details.put("type", credential.credentialType());
    details.put("clusterId", cluster.id().toString());
    details.put("cluster", cluster.name());
    details.put("namespaces", namespaces);
    List<String> reasons = new ArrayList<>();
    for (String ns : namespaces) {
      for (String r : v.reasons().getOrDefault(ns, List.of())) {
        if (!reasons.contains(r)) {
          reasons.add(r);
        }
      }
    }
    details.put("reasons", reasons);
    details.put("policy", v.policy());
    details.put("version", v.version());
    details.put("sha256", v.sha256());
    details.put("inputSha256", v.in());
    details.put("cause", cause);
    details.put("syncId", syncId);
    audit.record(
        cluster.orgId(),
        new Actor("workflow", "credential-sync-" + cluster.id(), actor == null ? "system" : actor),
        DENIED,
        "credential",
        credential.credentialId().toString(),
        details);
  }
}
