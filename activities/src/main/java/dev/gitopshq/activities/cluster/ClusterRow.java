package dev.gitopshq.activities.cluster;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A registered cluster as stored, plus one derived fact: whether an unused, unexpired registration
 * token exists for it ({@code registrationOpen}). The connection status shown to users is computed
 * from these fields by {@link ClusterStatus}.
 *
 * @param acceptance null when no admin decision was required for the agent that registered last,
 *     otherwise pending, accepted or rejected (hub acceptance)
 * @param apiServerSha256 the SHA-256 of the API server URL the agent reported, or null
 * @param nodeCount the node count the agent reported (0: it could not tell), or null
 * @param kubernetesVersion the API server version the agent reported, or null
 * @param identityReportedAt when the agent last reported these
 * @param reportedLabels the labels the agent reports (its chart's {@code cluster.labels}); {@code
 *     labels} are those set in the hub. Selectors and policies see {@link #effectiveLabels()}.
 */
public record ClusterRow(
    UUID id,
    UUID orgId,
    String name,
    String displayName,
    String provider,
    String region,
    String environment,
    Map<String, String> labels,
    String agentVersion,
    List<String> capabilities,
    int heartbeatIntervalSeconds,
    Instant registeredAt,
    Instant connectedAt,
    String connectedReplica,
    Instant lastSeenAt,
    String createdBy,
    Instant createdAt,
    Instant updatedAt,
    boolean registrationOpen,
    String acceptance,
    String apiServerSha256,
    Integer nodeCount,
    String kubernetesVersion,
    Instant identityReportedAt,
    Map<String, String> reportedLabels) {

  public ClusterRow {
    labels = labels == null ? Map.of() : labels;
    reportedLabels = reportedLabels == null ? Map.of() : reportedLabels;
  }

  /**
   * The labels selectors and policies see: those the agent reports, with those set in the hub
   * winning for a key set in both (an admin's label is never overridden from the cluster).
   */
  public Map<String, String> effectiveLabels() {
    if (reportedLabels.isEmpty()) {
      return labels;
    }
    Map<String, String> out = new TreeMap<>(reportedLabels);
    out.putAll(labels);
    return out;
  }

  /**
   * Whether the hub may use the cluster's agent: it registered and no admin decision is pending or
   * negative (hub acceptance). Only such a cluster is bound by environments' selectors.
   */
  public boolean usable() {
    return registeredAt != null && !pendingAcceptance() && !rejected();
  }

  /** Whether an admin must still accept (or reject) the agent before the hub uses it. */
  public boolean pendingAcceptance() {
    return "pending".equals(acceptance);
  }

  /** Whether an admin rejected the agent; its token was revoked. */
  public boolean rejected() {
    return "rejected".equals(acceptance);
  }
}
