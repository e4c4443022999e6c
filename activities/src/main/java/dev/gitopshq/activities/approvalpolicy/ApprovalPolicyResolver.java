package dev.gitopshq.activities.approvalpolicy;

import dev.gitopshq.activities.cluster.ClusterRow;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The one service that answers "which approval policy governs this cluster": command governance
 * (the OPA input's {@code settings}), the approval-policy REST API and the cluster view all ask it.
 * The rule itself is {@link Precedence}.
 */
public class ApprovalPolicyResolver {
  private final ApprovalPolicyMapper policies;

  public ApprovalPolicyResolver(ApprovalPolicyMapper policies) {
    this.policies = policies;
  }

  /** The policy in force for the cluster, if any policy is attached to it. */
  public Optional<PolicyInForce> inForce(ClusterRow cluster) {
    return Precedence.resolve(policies.list(cluster.orgId()), target(cluster));
  }

  /** The policy in force for each of one organization's clusters (one query for all). */
  public Map<UUID, Optional<PolicyInForce>> inForce(UUID orgId, List<ClusterRow> clusters) {
    List<ApprovalPolicyRow> all = policies.list(orgId);
    return clusters.stream()
        .collect(
            Collectors.toMap(
                ClusterRow::id,
                c -> Precedence.resolve(all, target(c)),
                (a, b) -> a,
                LinkedHashMap::new));
  }

  public static Precedence.Target target(ClusterRow c) {
    return new Precedence.Target(c.name(), c.effectiveLabels());
  }
}
