package dev.gitopshq.hub.credential;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.credential.AssignmentRow;
import dev.gitopshq.activities.credential.CredentialMapper;
import dev.gitopshq.activities.credential.CredentialRow;
import dev.gitopshq.activities.credential.CredentialVault;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Creates, changes, deletes and assigns credentials. Values are checked ({@link CredentialValues}),
 * sealed ({@link CredentialVault}) and never returned, logged or audited: the audit details hold
 * names, types, key names, versions and targets. Every change that concerns a cluster starts (or
 * signals) that cluster's credential sync workflow once the change has committed, naming the change
 * and its author as the cause the credentials policy decides on.
 */
@Service
public class CredentialService {
  static final int MAX_CLUSTERS = 200;
  static final int MAX_NAMESPACES = 50;

  private final CredentialMapper credentials;
  private final ClusterMapper clusters;
  private final CredentialVault vault;
  private final AuditLog audit;
  private final Clock clock;
  private final CredentialSyncStarter syncs;

  public CredentialService(
      CredentialMapper credentials,
      ClusterMapper clusters,
      CredentialVault vault,
      AuditLog audit,
      Clock clock,
      CredentialSyncStarter syncs) {
    this.syncs = syncs;
    this.credentials = credentials;
    this.clusters = clusters;
    this.vault = vault;
    this.audit = audit;
    this.clock = clock;
  }

  /** A target of an assignment: a cluster and its namespaces. */
  public record Target(UUID clusterId, List<String> namespaces) {}

  @Transactional
  public CredentialRow create(
      HubPrincipal caller, String name, String type, String description, Map<String, String> data) {
    Checks c = new Checks();
    c.dnsLabel("name", name);
    if (type == null || !CredentialValues.TYPES.contains(type)) {
      c.fail("type", "must be one of dockerconfigjson, tls, opaque");
    }
    c.text("description", description, 500);
    CredentialValues.Checked checked = c.ok() ? CredentialValues.check(c, type, data) : null;
    c.throwIfInvalid();
    UUID orgId = caller.orgId();
    if (credentials.findByName(orgId, name).isPresent()) {
      throw ApiException.conflict("a credential named " + name + " already exists");
    }
    UUID id = UUID.randomUUID();
    Instant now = clock.instant();
    CredentialRow row =
        new CredentialRow(
            id,
            orgId,
            name,
            type,
            description == null ? "" : description,
            vault.seal(orgId, id, checked.values()),
            CredentialVault.KEY_ID,
            1,
            checked.keyNames(),
            checked.fingerprint(),
            caller.id(),
            now,
            now);
    try {
      credentials.insert(row);
    } catch (DuplicateKeyException e) {
      throw ApiException.conflict("a credential named " + name + " already exists");
    }
    Map<String, Object> details = describe(row);
    audit.record(orgId, caller.actor(), "credential.created", "credential", id.toString(), details);
    return row;
  }

  @Transactional(readOnly = true)
  public List<CredentialRow> list(UUID orgId) {
    return credentials.list(orgId);
  }

  @Transactional(readOnly = true)
  public CredentialRow get(UUID orgId, UUID id) {
    return credentials.find(orgId, id).orElseThrow(() -> ApiException.notFound("credential " + id));
  }

  @Transactional(readOnly = true)
  public List<AssignmentRow> assignments(UUID orgId, UUID id) {
    get(orgId, id);
    return credentials.assignmentsOf(orgId, id);
  }

  /**
   * Changes the description and/or replaces the values (then the version grows, every target goes
   * back to pending and is re-synced).
   */
  @Transactional
  public CredentialRow update(
      HubPrincipal caller, UUID id, String description, Map<String, String> data) {
    UUID orgId = caller.orgId();
    CredentialRow row = get(orgId, id);
    Checks c = new Checks();
    c.text("description", description, 500);
    CredentialValues.Checked checked =
        data == null ? null : CredentialValues.check(c, row.type(), data);
    if (description == null && data == null) {
      c.fail("data", "nothing to change: give data and/or description");
    }
    c.throwIfInvalid();
    Instant now = clock.instant();
    if (description != null) {
      credentials.describe(orgId, id, description, now);
    }
    if (checked != null) {
      credentials.replaceValues(
          orgId,
          id,
          vault.seal(orgId, id, checked.values()),
          CredentialVault.KEY_ID,
          checked.keyNames(),
          checked.fingerprint(),
          now);
      credentials.pendingForCredential(orgId, id, now);
      syncs.sync(
          orgId,
          clustersOf(credentials.assignmentsOf(orgId, id)),
          "credential " + row.name() + " changed",
          caller.id());
    }
    CredentialRow updated = get(orgId, id);
    Map<String, Object> details = describe(updated);
    details.put("valuesChanged", checked != null);
    details.put("descriptionChanged", description != null);
    audit.record(orgId, caller.actor(), "credential.updated", "credential", id.toString(), details);
    return updated;
  }

  /** Deletes the credential; its Secrets are removed from every cluster it was assigned to. */
  @Transactional
  public void delete(HubPrincipal caller, UUID id) {
    UUID orgId = caller.orgId();
    CredentialRow row = get(orgId, id);
    List<AssignmentRow> assigned = credentials.assignmentsOf(orgId, id);
    List<String> targets = targets(assigned);
    credentials.delete(orgId, id);
    syncs.sync(orgId, clustersOf(assigned), "credential " + row.name() + " deleted", caller.id());
    Map<String, Object> details = describe(row);
    details.put("removedFrom", targets);
    audit.record(orgId, caller.actor(), "credential.deleted", "credential", id.toString(), details);
  }

  /**
   * Replaces where the credential is synced. A cluster whose agent did not announce credential.sync
   * is refused (409): the hub does not queue Secrets for an agent that will not write them.
   */
  @Transactional
  public List<AssignmentRow> assign(HubPrincipal caller, UUID id, List<Target> targets) {
    UUID orgId = caller.orgId();
    CredentialRow row = get(orgId, id);
    Checks c = new Checks();
    if (targets == null) {
      c.fail("assignments", "is required (an empty list unassigns the credential everywhere)");
      c.throwIfInvalid();
    }
    if (targets.size() > MAX_CLUSTERS) {
      c.fail("assignments", "must name at most " + MAX_CLUSTERS + " clusters");
      c.throwIfInvalid();
    }
    Map<UUID, Set<String>> wanted = new LinkedHashMap<>();
    Map<UUID, ClusterRow> byId = new LinkedHashMap<>();
    for (int i = 0; i < targets.size(); i++) {
      Target t = targets.get(i);
      String field = "assignments[" + i + "]";
      if (t == null || t.clusterId() == null) {
        c.fail(field + ".clusterId", "is required");
        continue;
      }
      if (t.namespaces() == null
          || t.namespaces().isEmpty()
          || t.namespaces().size() > MAX_NAMESPACES) {
        c.fail(field + ".namespaces", "must name 1 to " + MAX_NAMESPACES + " namespaces");
        continue;
      }
      for (String ns : t.namespaces()) {
        c.dnsLabel(field + ".namespaces", ns);
      }
      if (wanted.containsKey(t.clusterId())) {
        c.fail(field + ".clusterId", "names a cluster twice");
        continue;
      }
      ClusterRow cluster = clusters.findById(orgId, t.clusterId()).orElse(null);
      if (cluster == null) {
        c.fail(field + ".clusterId", "no such cluster in this organization");
        continue;
      }
      byId.put(cluster.id(), cluster);
      wanted.put(cluster.id(), new LinkedHashSet<>(t.namespaces()));
    }
    c.throwIfInvalid();
    for (ClusterRow cluster : byId.values()) {
      if (!cluster.capabilities().contains(Capabilities.CREDENTIAL_SYNC)) {
        throw ApiException.conflict(
            "cluster "
                + cluster.name()
                + ": its agent does not have the credential.sync capability (the chart's"
                + " capabilities.credentialSync with rbac.profile=readwrite)");
      }
    }
    Instant now = clock.instant();
    List<String> removed = new ArrayList<>();
    List<String> added = new ArrayList<>();
    Set<UUID> changed = new LinkedHashSet<>();
    for (AssignmentRow a : credentials.assignmentsOf(orgId, id)) {
      Set<String> keep = wanted.get(a.clusterId());
      if (keep == null || !keep.contains(a.namespace())) {
        credentials.unassign(orgId, id, a.clusterId(), a.namespace());
        removed.add(a.clusterName() + "/" + a.namespace());
        changed.add(a.clusterId());
      }
    }
    for (Map.Entry<UUID, Set<String>> e : wanted.entrySet()) {
      for (String ns : e.getValue()) {
        if (credentials.assign(orgId, id, e.getKey(), ns, now) == 1) {
          added.add(byId.get(e.getKey()).name() + "/" + ns);
          changed.add(e.getKey());
        }
      }
    }
    syncs.sync(orgId, changed, "credential " + row.name() + " assignments changed", caller.id());
    if (!added.isEmpty() || !removed.isEmpty()) {
      Map<String, Object> details = describe(row);
      details.put("added", added);
      details.put("removed", removed);
      audit.record(
          orgId, caller.actor(), "credential.assigned", "credential", id.toString(), details);
    }
    return credentials.assignmentsOf(orgId, id);
  }

  /** The credentials synced to a cluster, per namespace, for its Credentials tab. */
  @Transactional(readOnly = true)
  public List<AssignmentRow> onCluster(UUID orgId, UUID clusterId) {
    clusters
        .findById(orgId, clusterId)
        .orElseThrow(() -> ApiException.notFound("cluster " + clusterId));
    return credentials.onCluster(orgId, clusterId);
  }

  private static Set<UUID> clustersOf(List<AssignmentRow> rows) {
    Set<UUID> out = new LinkedHashSet<>();
    rows.forEach(a -> out.add(a.clusterId()));
    return out;
  }

  private static List<String> targets(List<AssignmentRow> rows) {
    return rows.stream().map(a -> a.clusterName() + "/" + a.namespace()).toList();
  }

  /** What the audit log may say about a credential: never a value. */
  private static Map<String, Object> describe(CredentialRow row) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("name", row.name());
    d.put("type", row.type());
    d.put("version", row.version());
    d.put("keys", row.keyNames());
    if (row.fingerprint() != null) {
      d.put("fingerprint", row.fingerprint());
    }
    return d;
  }
}
