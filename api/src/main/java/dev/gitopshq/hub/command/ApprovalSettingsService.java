package dev.gitopshq.hub.command;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.command.ApprovalSettingsMapper;
import dev.gitopshq.activities.command.ApprovalSettingsRow;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A cluster's approval policy binding: read, and replaced with an audit entry in one transaction.
 */
@Service
public class ApprovalSettingsService {
  private final ApprovalSettingsMapper settings;
  private final ClusterMapper clusters;
  private final AuditLog audit;

  public ApprovalSettingsService(
      ApprovalSettingsMapper settings, ClusterMapper clusters, AuditLog audit) {
    this.settings = settings;
    this.clusters = clusters;
    this.audit = audit;
  }

  /** The cluster's binding, if it has one; another organization's cluster is a 404. */
  @Transactional(readOnly = true)
  public Optional<ApprovalSettingsRow> find(HubPrincipal caller, UUID clusterId) {
    requireCluster(caller, clusterId);
    return settings.find(caller.orgId(), clusterId);
  }

  /**
   * Replaces the binding and audits {@code cluster.approval_policy.updated} with {@code details}.
   */
  @Transactional
  public ApprovalSettingsRow save(
      HubPrincipal caller, ApprovalSettingsRow row, Map<String, Object> details) {
    requireCluster(caller, row.clusterId());
    settings.upsert(row);
    audit.record(
        caller.orgId(),
        caller.actor(),
        "cluster.approval_policy.updated",
        "cluster",
        row.clusterId().toString(),
        details);
    return settings.find(caller.orgId(), row.clusterId()).orElseThrow();
  }

  private void requireCluster(HubPrincipal caller, UUID id) {
    if (clusters.findById(caller.orgId(), id).isEmpty()) {
      throw ApiException.notFound("cluster " + id);
    }
  }
}
