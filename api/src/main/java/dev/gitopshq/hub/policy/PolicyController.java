package dev.gitopshq.hub.policy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.credential.CredentialSyncDecisions;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.policy.InvalidPolicyException;
import dev.gitopshq.activities.policy.OpaError;
import dev.gitopshq.activities.policy.OpaUnavailableException;
import dev.gitopshq.activities.policy.PolicyCompileException;
import dev.gitopshq.activities.policy.PolicyEvaluation;
import dev.gitopshq.activities.policy.PolicyEvaluationException;
import dev.gitopshq.activities.policy.PolicyRow;
import dev.gitopshq.activities.policy.PolicyService;
import dev.gitopshq.activities.policy.PolicyVersionRow;
import dev.gitopshq.activities.policy.PolicyWhatIf;
import dev.gitopshq.activities.policy.UnknownPolicyException;
import dev.gitopshq.activities.policy.WhatIfBusyException;
import dev.gitopshq.hub.credential.CredentialSyncStarter;
import dev.gitopshq.hub.features.Feature;
import dev.gitopshq.hub.features.PlanGuard;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiError;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/policies}: read policies and their versions, publish a new version (OPA compiles
 * it first; a module that does not compile is refused with OPA's errors and nothing is stored), and
 * dry-run a policy against an input document.
 */
@RestController
@RequestMapping("/api/v2/policies")
public class PolicyController {
  private final PolicyService policies;
  private final PolicyWhatIf whatIfs;
  private final PlanGuard plans;
  private final CredentialSyncStarter credentialSyncs;

  public PolicyController(
      PolicyService policies,
      PolicyWhatIf whatIfs,
      PlanGuard plans,
      CredentialSyncStarter credentialSyncs) {
    this.policies = policies;
    this.whatIfs = whatIfs;
    this.plans = plans;
    this.credentialSyncs = credentialSyncs;
  }

  /** A policy in the listing: its active version. */
  record PolicySummary(String name, int version, String createdBy, Instant createdAt) {}

  record PolicyList(List<PolicySummary> items) {}

  /** A version in a policy's history. */
  record VersionView(int version, String createdBy, Instant createdAt, boolean active) {}

  /**
   * A policy with its active version's text and its history. A PUT adds {@code previousVersion}
   * (absent for a new policy) and {@code changed} (false when the text equalled the active one).
   */
  record PolicyDetail(
      String name,
      int version,
      String rego,
      String createdBy,
      Instant createdAt,
      List<VersionView> versions,
      Integer previousVersion,
      Boolean changed) {}

  /** One stored version with its text. */
  record PolicyVersionDetail(
      String name, int version, String rego, String createdBy, Instant createdAt, boolean active) {}

  record PublishRequest(@Schema(requiredMode = Schema.RequiredMode.REQUIRED) String rego) {}

  record EvaluateRequest(@Schema(requiredMode = Schema.RequiredMode.REQUIRED) JsonNode input) {}

  /** A what-if: the draft's Rego text and how many recorded decisions to evaluate (default 100). */
  record WhatIfRequest(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String rego, Integer limit) {}

  /** A dry run's answer: the version and the SHA-256 of its text that decided, and the decision. */
  record EvaluateResponse(String policy, int version, String sha256, JsonNode decision) {}

  /**
   * The 400 for a module OPA refused: the shared error fields, each OPA error as a {@code rego}
   * field error ({@code file:row:col: message}), and OPA's own list.
   */
  record PolicyCompileError(
      int status,
      String error,
      String message,
      List<ApiError.FieldError> errors,
      List<OpaError> opaErrors) {}

  @GetMapping
  PolicyList list() {
    HubPrincipal caller = Authz.require(Permission.POLICIES_READ);
    return new PolicyList(
        policies.listActive(caller.orgId()).stream()
            .map(p -> new PolicySummary(p.name(), p.version(), p.createdBy(), p.createdAt()))
            .toList());
  }

  @GetMapping("/{name}")
  PolicyDetail get(@PathVariable String name) {
    HubPrincipal caller = Authz.require(Permission.POLICIES_READ);
    PolicyRow active =
        policies
            .findActive(caller.orgId(), name)
            .orElseThrow(() -> ApiException.notFound("policy '" + name + "'"));
    return detail(active, null, null);
  }

  @GetMapping("/{name}/versions/{version}")
  PolicyVersionDetail version(@PathVariable String name, @PathVariable int version) {
    HubPrincipal caller = Authz.require(Permission.POLICIES_READ);
    PolicyRow row =
        policies
            .findVersion(caller.orgId(), name, version)
            .orElseThrow(
                () -> ApiException.notFound("version " + version + " of policy '" + name + "'"));
    return new PolicyVersionDetail(
        row.name(), row.version(), row.rego(), row.createdBy(), row.createdAt(), row.active());
  }

  /** Publishes a new version; 200 with the policy as it now is. */
  @PutMapping("/{name}")
  PolicyDetail publish(@PathVariable String name, @RequestBody PublishRequest body) {
    HubPrincipal caller = Authz.require(Permission.POLICIES_WRITE);
    plans.require(caller, Feature.VALUES_GOVERNANCE);
    Checks checks = new Checks().dnsLabel("name", name);
    if (body == null || body.rego() == null || body.rego().isBlank()) {
      checks.fail("rego", "is required");
    }
    checks.throwIfInvalid();
    PolicyService.Published published;
    try {
      published = policies.publish(caller.orgId(), name, body.rego(), caller.actor());
    } catch (InvalidPolicyException e) {
      throw ApiException.invalid(
          e.problems().stream().map(p -> new ApiError.FieldError(p.field(), p.reason())).toList());
    } catch (OpaUnavailableException e) {
      throw unavailable(
          "the policy engine (OPA) is unreachable, so the policy could not be compiled; nothing was"
              + " stored and version "
              + policies
                  .findActive(caller.orgId(), name)
                  .map(p -> p.version() + " stays active")
                  .orElse("none exists yet")
              + ". Try again when OPA is back");
    }
    if (published.changed() && CredentialSyncDecisions.POLICY.equals(name)) {
      credentialSyncs.syncOrganization(
          caller.orgId(),
          "credentials policy version " + published.policy().version() + " published",
          caller.id());
    }
    return detail(published.policy(), published.previousVersion(), published.changed());
  }

  /** A dry run: evaluates the active version with the given input; nothing is recorded. */
  @PostMapping("/{name}/evaluate")
  EvaluateResponse evaluate(@PathVariable String name, @RequestBody EvaluateRequest body) {
    HubPrincipal caller = Authz.require(Permission.POLICIES_READ);
    if (body == null || body.input() == null || !body.input().isObject()) {
      throw ApiException.invalid("input", "is required and must be a JSON object");
    }
    try {
      PolicyEvaluation e = policies.evaluate(caller.orgId(), name, body.input());
      return new EvaluateResponse(
          e.policyName(), e.policyVersion(), e.policySha256(), e.decision());
    } catch (UnknownPolicyException e) {
      throw ApiException.notFound("policy '" + name + "'");
    } catch (OpaUnavailableException e) {
      throw unavailable(
          "the policy engine (OPA) cannot decide right now: it is unreachable, or the hub is still"
              + " loading policy '"
              + name
              + "' into it. Try again in a few seconds");
    } catch (PolicyEvaluationException e) {
      throw new ApiException(new ApiError(422, "policy_error", e.getMessage(), null));
    }
  }

  /**
   * A what-if: evaluates a draft in OPA against the organization's latest recorded decisions of the
   * policy, without publishing it; answers the decisions that would change. Needs what publishing
   * needs (policies:write and the plan's values governance).
   */
  @PostMapping("/{name}/what-if")
  PolicyWhatIf.WhatIfResult whatIf(@PathVariable String name, @RequestBody WhatIfRequest body) {
    HubPrincipal caller = Authz.require(Permission.POLICIES_WRITE);
    plans.require(caller, Feature.VALUES_GOVERNANCE);
    Checks checks = new Checks().dnsLabel("name", name);
    if (body == null || body.rego() == null || body.rego().isBlank()) {
      checks.fail("rego", "is required");
    }
    int limit = body == null || body.limit() == null ? PolicyWhatIf.DEFAULT_LIMIT : body.limit();
    if (limit < 1 || limit > PolicyWhatIf.MAX_LIMIT) {
      checks.fail("limit", "must be between 1 and " + PolicyWhatIf.MAX_LIMIT);
    }
    checks.throwIfInvalid();
    try {
      return whatIfs.run(caller.orgId(), name, body.rego(), limit, caller.actor());
    } catch (UnknownPolicyException e) {
      throw ApiException.notFound("policy '" + name + "'");
    } catch (InvalidPolicyException e) {
      throw ApiException.invalid(
          e.problems().stream().map(p -> new ApiError.FieldError(p.field(), p.reason())).toList());
    } catch (WhatIfBusyException e) {
      throw new ApiException(new ApiError(429, "what_if_busy", e.getMessage(), null));
    } catch (OpaUnavailableException e) {
      throw unavailable(
          "the policy engine (OPA) is unreachable, so the draft could not be evaluated; nothing"
              + " changed. Try again when OPA is back");
    }
  }

  /** OPA refused the module: 400 with OPA's errors, each also as a {@code rego} field error. */
  @ExceptionHandler(PolicyCompileException.class)
  ResponseEntity<PolicyCompileError> compileError(PolicyCompileException e) {
    List<ApiError.FieldError> fields =
        e.errors().stream().map(err -> new ApiError.FieldError("rego", err.describe())).toList();
    return ResponseEntity.badRequest()
        .body(
            new PolicyCompileError(
                400, "invalid_request", "policy does not compile", fields, e.errors()));
  }

  private PolicyDetail detail(PolicyRow row, Integer previousVersion, Boolean changed) {
    List<VersionView> versions =
        policies.versions(row.orgId(), row.name()).stream().map(PolicyController::view).toList();
    return new PolicyDetail(
        row.name(),
        row.version(),
        row.rego(),
        row.createdBy(),
        row.createdAt(),
        versions,
        previousVersion,
        changed);
  }

  private static VersionView view(PolicyVersionRow v) {
    return new VersionView(v.version(), v.createdBy(), v.createdAt(), v.active());
  }

  private static ApiException unavailable(String message) {
    return new ApiException(new ApiError(503, "opa_unavailable", message, null));
  }
}
