package dev.gitopshq.activities.approvalpolicy;

import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.delivery.DeliveryJson;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * An approval policy as stored: its rules (what OPA receives as {@code input.settings}) and its
 * attachments: cluster names ({@code clusters}) and a label selector ({@code selectorJson}, JSON of
 * a {@link LabelSelector}, or null when the policy has none).
 */
public record ApprovalPolicyRow(
    UUID id,
    UUID orgId,
    String name,
    String description,
    List<String> requireApproval,
    List<String> autoApprove,
    int requiredApprovers,
    List<String> approverRoles,
    List<String> approverTeams,
    boolean breakGlassAllowed,
    List<String> breakGlassRoles,
    List<String> clusters,
    String selectorJson,
    String createdBy,
    Instant createdAt,
    String updatedBy,
    Instant updatedAt) {

  public ApprovalPolicyRow {
    clusters = clusters == null ? List.of() : List.copyOf(clusters);
  }

  /** The selector attachment, or null. */
  public LabelSelector selector() {
    return DeliveryJson.selector(selectorJson);
  }
}
