package dev.gitopshq.hub.approvalpolicy;

import dev.gitopshq.activities.approvalpolicy.ApprovalPolicyRow;
import dev.gitopshq.activities.approvalpolicy.PolicyInForce;
import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.hub.approvalpolicy.ApprovalPolicyRequests.BreakGlass;
import dev.gitopshq.hub.approvalpolicy.ApprovalPolicyService.GovernedCluster;
import java.time.Instant;
import java.util.List;

/**
 * An approval policy as the API shows it: rules, attachments, and the clusters it governs now
 * ({@code governs}: each current cluster whose policy in force it is, and how it is attached).
 */
public record ApprovalPolicyView(
    String name,
    String description,
    List<String> requireApproval,
    List<String> autoApprove,
    int requiredApprovers,
    List<String> approverRoles,
    List<String> approverTeams,
    BreakGlass breakGlass,
    List<String> clusters,
    LabelSelector selector,
    List<GovernedCluster> governs,
    String createdBy,
    Instant createdAt,
    String updatedBy,
    Instant updatedAt) {

  static ApprovalPolicyView of(ApprovalPolicyRow p, List<GovernedCluster> governs) {
    return new ApprovalPolicyView(
        p.name(),
        p.description(),
        p.requireApproval(),
        p.autoApprove(),
        p.requiredApprovers(),
        p.approverRoles(),
        p.approverTeams(),
        new BreakGlass(p.breakGlassAllowed(), p.breakGlassRoles()),
        p.clusters(),
        p.selector(),
        governs == null ? List.of() : governs,
        p.createdBy(),
        p.createdAt(),
        p.updatedBy(),
        p.updatedAt());
  }

  /**
   * The policy in force for a cluster, as the cluster view shows it: the policy's name, how it is
   * attached ({@code name} or {@code selector}), the matching selector, a sentence saying why, and
   * a warning when a label change made a tie (see {@link PolicyInForce}); null when no policy is
   * attached and the approval policy's defaults apply.
   */
  public record ApprovalPolicyInForce(
      String name,
      String attachedBy,
      String selector,
      String reason,
      String warning,
      List<String> tiedWith) {
    public static ApprovalPolicyInForce of(PolicyInForce p) {
      return new ApprovalPolicyInForce(
          p.policy().name(), p.attachedBy(), p.selector(), p.reason(), p.warning(), p.tiedWith());
    }
  }
}
