package dev.gitopshq.hub.command;

import dev.gitopshq.activities.approvalpolicy.ApprovalPolicyRow;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.approvalpolicy.ApprovalPolicyRequests;
import dev.gitopshq.hub.approvalpolicy.ApprovalPolicyRequests.BreakGlass;
import dev.gitopshq.hub.approvalpolicy.ApprovalPolicyRequests.Rules;
import dev.gitopshq.hub.approvalpolicy.ApprovalPolicyService;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/clusters/{id}/approval-policy}: the cluster's own approval policy, the one
 * attached to it by name (before approval policies were objects, the settings bound to the
 * cluster). PUT replaces that policy's rules, or creates {@code cluster-<name>} attached to the
 * cluster by name. Which policy is in force, by name or by selector, is in the cluster view's
 * {@code approvalPolicy}.
 */
@RestController
public class ClusterApprovalPolicyController {
  private final ApprovalPolicyService policies;

  public ClusterApprovalPolicyController(ApprovalPolicyService policies) {
    this.policies = policies;
  }

  record Body(
      List<String> requireApproval,
      List<String> autoApprove,
      Integer requiredApprovers,
      List<String> approverRoles,
      List<String> approverTeams,
      BreakGlass breakGlass) {}

  record View(
      boolean bound,
      String policy,
      List<String> requireApproval,
      List<String> autoApprove,
      Integer requiredApprovers,
      List<String> approverRoles,
      List<String> approverTeams,
      BreakGlass breakGlass,
      String updatedBy,
      Instant updatedAt) {
    static View of(ApprovalPolicyRow s) {
      return new View(
          true,
          s.name(),
          s.requireApproval(),
          s.autoApprove(),
          s.requiredApprovers(),
          s.approverRoles(),
          s.approverTeams(),
          new BreakGlass(s.breakGlassAllowed(), s.breakGlassRoles()),
          s.updatedBy(),
          s.updatedAt());
    }
  }

  @GetMapping("/api/v2/clusters/{id}/approval-policy")
  View get(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    return policies
        .own(caller, id)
        .map(View::of)
        .orElse(new View(false, null, null, null, null, null, null, null, null, null));
  }

  @PutMapping("/api/v2/clusters/{id}/approval-policy")
  View put(@PathVariable UUID id, @RequestBody Body body) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    policies.own(caller, id); // another organization's cluster is a 404 before the body is judged
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    Checks c = new Checks();
    Rules rules =
        ApprovalPolicyRequests.rules(
            c,
            body.requireApproval(),
            body.autoApprove(),
            body.requiredApprovers(),
            body.approverRoles(),
            body.approverTeams(),
            body.breakGlass());
    c.throwIfInvalid();
    return View.of(policies.saveOwn(caller, id, rules));
  }
}
