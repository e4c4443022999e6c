package dev.gitopshq.hub.cluster;

import dev.gitopshq.activities.approvalpolicy.PolicyInForce;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.cluster.ClusterStatus;
import dev.gitopshq.hub.approvalpolicy.ApprovalPolicyView;
import dev.gitopshq.hub.config.HubVersion;
import dev.gitopshq.hub.config.VersionCompatibility;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A cluster as the API shows it. {@code versionDrift} is the Clusters page's badge: the agent is
 * more than one minor version behind the hub; {@code versionStatus} is current, behind or
 * unsupported; {@code health} carries the uptime, heartbeat latency and the agent's own status;
 * {@code approvalPolicy} is the approval policy in force and why (null: none is attached, the
 * approval policy's defaults apply). {@code status} is PendingAcceptance or Rejected when an admin
 * must decide, or decided against, the agent (hub acceptance); {@code acceptance} then carries the
 * identity the agent reported and whether it is connected now. {@code labels} are those set in the
 * hub (PATCH changes them), {@code reportedLabels} those the agent reports (its chart's {@code
 * cluster.labels}) and {@code effectiveLabels} what selectors and policies see: both merged, the
 * hub's value winning for a key set in both.
 */
public record ClusterView(
    String id,
    String name,
    String displayName,
    String provider,
    String region,
    String environment,
    Map<String, String> labels,
    ClusterStatus status,
    Instant lastSeen,
    String agentVersion,
    boolean versionDrift,
    String versionStatus,
    List<String> capabilities,
    int heartbeatIntervalSeconds,
    Instant registeredAt,
    Instant connectedAt,
    Instant createdAt,
    Instant updatedAt,
    AgentHealth.Figures health,
    ApprovalPolicyView.ApprovalPolicyInForce approvalPolicy,
    Acceptance acceptance,
    Map<String, String> reportedLabels,
    Map<String, String> effectiveLabels) {

  /**
   * Hub acceptance: the decision about the agent that registered last, and the cluster identity it
   * reported for the admin who decides.
   *
   * @param state pending, accepted or rejected; null (the whole object is) when none was required
   * @param agentConnected whether the agent holds a stream now (Connected or Lagging)
   * @param apiServerSha256 SHA-256 of the API server URL the agent uses (never the URL)
   * @param nodeCount the cluster's node count (0: the agent could not list nodes)
   */
  public record Acceptance(
      String state,
      boolean agentConnected,
      String apiServerSha256,
      Integer nodeCount,
      String kubernetesVersion,
      String agentVersion,
      Instant reportedAt) {}

  static ClusterView of(
      ClusterRow c,
      Instant now,
      Duration disconnectTimeout,
      AgentHealth.Figures health,
      Optional<PolicyInForce> approvalPolicy) {
    return new ClusterView(
        c.id().toString(),
        c.name(),
        c.displayName(),
        c.provider(),
        c.region(),
        c.environment(),
        c.labels(),
        ClusterStatus.shown(c, now, disconnectTimeout),
        c.lastSeenAt(),
        c.agentVersion(),
        VersionCompatibility.drifted(c.agentVersion(), HubVersion.current()),
        VersionCompatibility.status(c.agentVersion(), HubVersion.current()),
        c.capabilities(),
        c.heartbeatIntervalSeconds(),
        c.registeredAt(),
        c.connectedAt(),
        c.createdAt(),
        c.updatedAt(),
        health,
        approvalPolicy.map(ApprovalPolicyView.ApprovalPolicyInForce::of).orElse(null),
        acceptance(c, ClusterStatus.of(c, now, disconnectTimeout)),
        c.reportedLabels(),
        c.effectiveLabels());
  }

  private static Acceptance acceptance(ClusterRow c, ClusterStatus connection) {
    if (c.acceptance() == null) {
      return null;
    }
    return new Acceptance(
        c.acceptance(),
        connection == ClusterStatus.Connected || connection == ClusterStatus.Lagging,
        c.apiServerSha256(),
        c.nodeCount(),
        c.kubernetesVersion(),
        c.agentVersion(),
        c.identityReportedAt());
  }
}
