package dev.gitopshq.activities.delivery;

import dev.gitopshq.activities.delivery.ProjectSnapshot.Fence;
import dev.gitopshq.agent.v1.TenantFence;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The fence an organization's admins set around one project ({@link TenantFence}); a project
 * without a row has {@link dev.gitopshq.agent.v1.TenantFences#DEFAULT}.
 *
 * @param updatedBy who set it, for people (a member's or service account's name)
 */
public record ProjectFenceRow(
    UUID orgId,
    UUID projectId,
    List<String> allowedNamespaces,
    List<String> clusterScopedKinds,
    List<String> deniedKinds,
    String updatedBy,
    Instant updatedAt) {
  public ProjectFenceRow {
    allowedNamespaces = allowedNamespaces == null ? List.of() : List.copyOf(allowedNamespaces);
    clusterScopedKinds = clusterScopedKinds == null ? List.of() : List.copyOf(clusterScopedKinds);
    deniedKinds = deniedKinds == null ? List.of() : List.copyOf(deniedKinds);
  }

  public TenantFence toProto() {
    return fence().toProto();
  }

  /** The fence as the snapshot carries it. */
  public Fence fence() {
    return new Fence(allowedNamespaces, clusterScopedKinds, deniedKinds);
  }
}
