package dev.gitopshq.hub.approvalpolicy;

import dev.gitopshq.activities.approvalpolicy.ApprovalPolicyRow;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.approvalpolicy.ApprovalPolicyRequests.ApprovalPolicyBody;
import dev.gitopshq.hub.approvalpolicy.ApprovalPolicyRequests.Rules;
import dev.gitopshq.hub.approvalpolicy.ApprovalPolicyService.Attachments;
import dev.gitopshq.hub.approvalpolicy.ApprovalPolicyService.GovernedCluster;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/approval-policies}: the organization's reusable approval policies, attached to
 * clusters by name and/or label selector (docs/policies.md#approval-policy-objects). Reading needs
 * clusters:read, changing clusters:write, as the cluster's own approval settings always did.
 */
@RestController
@RequestMapping("/api/v2/approval-policies")
public class ApprovalPolicyController {
  private final ApprovalPolicyService policies;

  public ApprovalPolicyController(ApprovalPolicyService policies) {
    this.policies = policies;
  }

  record ApprovalPolicyList(List<ApprovalPolicyView> items) {}

  @GetMapping
  ApprovalPolicyList list() {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    Map<String, List<GovernedCluster>> governed = policies.governed(caller);
    return new ApprovalPolicyList(
        policies.list(caller).stream()
            .map(p -> ApprovalPolicyView.of(p, governed.get(p.name())))
            .toList());
  }

  @GetMapping("/{name}")
  ApprovalPolicyView get(@PathVariable String name) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    return view(caller, policies.get(caller, name));
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  ApprovalPolicyView create(@RequestBody ApprovalPolicyBody body) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    Checks c = new Checks();
    c.dnsLabel("name", body.name());
    Parsed p = parse(c, body);
    return view(
        caller, policies.create(caller, body.name(), body.description(), p.rules(), p.att()));
  }

  /** Replaces the policy's rules and attachments (every field; what is left out is cleared). */
  @PutMapping("/{name}")
  ApprovalPolicyView update(@PathVariable String name, @RequestBody ApprovalPolicyBody body) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    policies.get(caller, name); // another organization's policy is a 404 before the body is judged
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    Checks c = new Checks();
    if (body.name() != null && !body.name().equals(name)) {
      c.fail("name", "cannot be changed (it is " + name + "); create a new policy instead");
    }
    Parsed p = parse(c, body);
    return view(caller, policies.update(caller, name, body.description(), p.rules(), p.att()));
  }

  @DeleteMapping("/{name}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void delete(@PathVariable String name) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    policies.delete(caller, name);
  }

  private record Parsed(Rules rules, Attachments att) {}

  private static Parsed parse(Checks c, ApprovalPolicyBody body) {
    c.displayName("description", body.description(), ApprovalPolicyRequests.MAX_DESCRIPTION, false);
    Rules rules = ApprovalPolicyRequests.rules(c, body);
    Attachments att =
        new Attachments(
            ApprovalPolicyRequests.clusters(c, body.clusters()),
            c.selector("selector", body.selector()));
    c.throwIfInvalid();
    return new Parsed(rules, att);
  }

  private ApprovalPolicyView view(HubPrincipal caller, ApprovalPolicyRow row) {
    return ApprovalPolicyView.of(row, policies.governed(caller).get(row.name()));
  }
}
