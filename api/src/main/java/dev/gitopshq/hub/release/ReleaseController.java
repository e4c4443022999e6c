package dev.gitopshq.hub.release;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.release.ChangeSummary;
import dev.gitopshq.activities.release.ConfigHistory;
import dev.gitopshq.activities.release.DeploymentEventRow;
import dev.gitopshq.activities.release.DeploymentRow;
import dev.gitopshq.activities.release.ReleaseRow;
import dev.gitopshq.activities.release.RollbackScope;
import dev.gitopshq.hub.approval.ApprovalViews;
import dev.gitopshq.hub.approval.ApprovalViews.ApprovalView;
import dev.gitopshq.hub.approval.ApprovalViews.EventView;
import dev.gitopshq.hub.features.Feature;
import dev.gitopshq.hub.features.PlanGuard;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Releases, promotions, rollbacks and their deployments. */
@RestController
public class ReleaseController {
  private static final int MAX_LIMIT = 200;

  private final ReleaseService releases;
  private final NewReleases newReleases;
  private final Promotions promotions;
  private final Rollbacks rollbacks;
  private final PlanGuard plans;

  public ReleaseController(
      ReleaseService releases,
      NewReleases newReleases,
      Promotions promotions,
      Rollbacks rollbacks,
      PlanGuard plans) {
    this.plans = plans;
    this.releases = releases;
    this.newReleases = newReleases;
    this.promotions = promotions;
    this.rollbacks = rollbacks;
  }

  record RequesterView(String id, String name) {}

  record ChangeView(String commit, String description, String author, Instant at) {}

  record ReleaseView(
      String id,
      int number,
      String kind,
      String description,
      long configRevision,
      String sourceCommit,
      Integer rollbackOf,
      JsonNode scope,
      RequesterView requester,
      Instant createdAt,
      List<ChangeView> changes) {}

  record DeploymentSummary(
      String id,
      String action,
      List<String> environments,
      String status,
      String detail,
      boolean breakGlass,
      Map<String, String> commits,
      String workflowId,
      Instant createdAt,
      Instant finishedAt,
      ChangeSummary changes) {}

  record Accepted(ReleaseView release, DeploymentSummary deployment) {}

  record Page(List<ReleaseView> items) {}

  /** Where a release stands in one environment: its newest deployment there. */
  record EnvironmentState(
      String environment,
      String status,
      String deploymentId,
      String action,
      String commit,
      Instant at) {}

  record ReleaseDetail(
      String id,
      int number,
      String kind,
      String description,
      long configRevision,
      String sourceCommit,
      Integer rollbackOf,
      JsonNode scope,
      RequesterView requester,
      Instant createdAt,
      List<EnvironmentState> environments,
      List<DeploymentSummary> deployments) {}

  /** A policy decision: which policy, its version and the SHA-256 of that version's text. */
  record DecisionView(String policy, Integer version, String sha256, String outcome) {}

  record ReleaseRef(String id, int number, String kind) {}

  record DeploymentDetail(
      String id,
      ReleaseRef release,
      String action,
      List<String> environments,
      String status,
      String detail,
      RequesterView requester,
      boolean breakGlass,
      String justification,
      DecisionView decision,
      List<ApprovalView> approvals,
      Map<String, String> commits,
      List<EventView> timeline,
      List<ClusterRun> clusters,
      String workflowId,
      Instant createdAt,
      Instant updatedAt,
      Instant finishedAt,
      ChangeSummary changes) {}

  // ---- releases ---------------------------------------------------------------------------

  @PostMapping("/api/v2/projects/{projectId}/releases")
  @ApiResponse(
      responseCode = "202",
      description = "The release was cut and its first deployment started",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = Accepted.class)))
  ResponseEntity<Accepted> create(
      @PathVariable UUID projectId, @RequestBody(required = false) ReleaseRequests.Create body) {
    HubPrincipal caller = Authz.require(Permission.RELEASES_CREATE);
    ReleaseRequests.Create req =
        body == null ? new ReleaseRequests.Create(null, null, null, null) : body;
    req.validate();
    DeploymentStarts.Created c = newReleases.create(caller, projectId, req);
    return ResponseEntity.status(HttpStatus.ACCEPTED)
        .body(new Accepted(view(c.release(), null, c.changes()), summary(c.deployment())));
  }

  @GetMapping("/api/v2/projects/{projectId}/releases")
  Page list(@PathVariable UUID projectId, @RequestParam(defaultValue = "50") int limit) {
    HubPrincipal caller = Authz.require(Permission.RELEASES_READ);
    if (limit < 1 || limit > MAX_LIMIT) {
      throw ApiException.invalid("limit", "must be between 1 and " + MAX_LIMIT);
    }
    List<ReleaseRow> rows = releases.list(caller.orgId(), projectId, limit);
    Map<UUID, Integer> numbers = releases.numbers(caller.orgId(), projectId);
    return new Page(
        rows.stream()
            .map(r -> view(r, r.rollbackOf() == null ? null : numbers.get(r.rollbackOf()), null))
            .toList());
  }

  @GetMapping("/api/v2/projects/{projectId}/releases/{number}")
  ReleaseDetail get(@PathVariable UUID projectId, @PathVariable int number) {
    HubPrincipal caller = Authz.require(Permission.RELEASES_READ);
    ReleaseService.ReleaseDetail d = releases.get(caller.orgId(), projectId, number);
    ReleaseRow r = d.release();
    Map<String, EnvironmentState> byEnv = new LinkedHashMap<>();
    for (DeploymentRow dep : d.deployments()) {
      for (String env : dep.environments()) {
        byEnv.put(
            env,
            new EnvironmentState(
                env,
                dep.status(),
                dep.id().toString(),
                dep.action(),
                dep.commits().get(env),
                dep.finishedAt() == null ? dep.updatedAt() : dep.finishedAt()));
      }
    }
    List<EnvironmentState> states = new ArrayList<>();
    for (String env : d.environmentOrder()) {
      if (byEnv.containsKey(env)) {
        states.add(byEnv.remove(env));
      }
    }
    states.addAll(byEnv.values()); // environments the project no longer has
    return new ReleaseDetail(
        r.id().toString(),
        r.number(),
        r.kind(),
        r.description(),
        r.configRevision(),
        r.sourceCommit(),
        d.rollbackOf() == null ? null : d.rollbackOf().number(),
        scope(r),
        new RequesterView(r.requestedBy(), r.requesterName()),
        r.createdAt(),
        states,
        d.deployments().stream().map(ReleaseController::summary).toList());
  }

  @PostMapping("/api/v2/projects/{projectId}/releases/{number}/promote")
  @ApiResponse(
      responseCode = "202",
      description = "The promotion started",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = DeploymentSummary.class)))
  ResponseEntity<DeploymentSummary> promote(
      @PathVariable UUID projectId,
      @PathVariable int number,
      @RequestBody(required = false) ReleaseRequests.Promote body) {
    HubPrincipal caller = Authz.require(Permission.RELEASES_CREATE);
    plans.require(caller, Feature.PROMOTION);
    ReleaseRequests.Promote req =
        body == null ? new ReleaseRequests.Promote(null, null, null) : body;
    req.validate();
    DeploymentStarts.Started s = promotions.promote(caller, projectId, number, req);
    return ResponseEntity.status(HttpStatus.ACCEPTED).body(summary(s.deployment()));
  }

  // ---- rollbacks --------------------------------------------------------------------------

  @PostMapping("/api/v2/projects/{projectId}/rollbacks")
  @ApiResponse(
      responseCode = "202",
      description = "The rollback started",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = Accepted.class)))
  ResponseEntity<Accepted> rollback(
      @PathVariable UUID projectId, @RequestBody(required = false) ReleaseRequests.Rollback body) {
    HubPrincipal caller = Authz.require(Permission.RELEASES_CREATE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object {toRelease, scope}");
    }
    plans.require(caller, Feature.ROLLBACK);
    RollbackScope scope = body.validate();
    if (!scope.all()) {
      plans.require(caller, Feature.SELECTIVE_ROLLBACK);
    }
    DeploymentStarts.Created c = rollbacks.rollback(caller, projectId, body, scope);
    return ResponseEntity.status(HttpStatus.ACCEPTED)
        .body(new Accepted(view(c.release(), body.toRelease(), null), summary(c.deployment())));
  }

  // ---- deployments ------------------------------------------------------------------------

  @GetMapping("/api/v2/projects/{projectId}/deployments/{deploymentId}")
  DeploymentDetail deployment(@PathVariable UUID projectId, @PathVariable UUID deploymentId) {
    HubPrincipal caller = Authz.require(Permission.RELEASES_READ);
    ReleaseService.DeploymentDetail x =
        releases.deployment(caller.orgId(), projectId, deploymentId);
    DeploymentRow d = x.deployment();
    List<ApprovalView> approvals = new ArrayList<>();
    x.approvals().forEach((a, votes) -> approvals.add(ApprovalViews.approval(a, votes)));
    return new DeploymentDetail(
        d.id().toString(),
        new ReleaseRef(x.release().id().toString(), x.release().number(), x.release().kind()),
        d.action(),
        d.environments(),
        d.status(),
        d.detail(),
        new RequesterView(d.requestedBy(), d.requesterName()),
        d.breakGlass(),
        d.justification(),
        d.outcome() == null
            ? null
            : new DecisionView(d.policy(), d.policyVersion(), d.policySha256(), d.outcome()),
        approvals,
        d.commits(),
        x.timeline().stream().map(ReleaseController::event).toList(),
        x.clusters().stream().map(ClusterRun::of).toList(),
        ReleaseService.workflowId(d),
        d.createdAt(),
        d.updatedAt(),
        d.finishedAt(),
        ChangeSummary.fromJson(d.changes()));
  }

  @PostMapping("/api/v2/projects/{projectId}/deployments/{deploymentId}/cancel")
  @ApiResponse(
      responseCode = "202",
      description = "The deployment is being cancelled",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = DeploymentSummary.class)))
  ResponseEntity<DeploymentSummary> cancel(
      @PathVariable UUID projectId, @PathVariable UUID deploymentId) {
    HubPrincipal caller = Authz.require(Permission.RELEASES_CREATE);
    DeploymentRow d = releases.cancel(caller, projectId, deploymentId);
    return ResponseEntity.status(HttpStatus.ACCEPTED).body(summary(d));
  }

  // ---- views ------------------------------------------------------------------------------

  static ReleaseView view(ReleaseRow r, Integer rollbackOf, List<ConfigHistory.Change> changes) {
    return new ReleaseView(
        r.id().toString(),
        r.number(),
        r.kind(),
        r.description(),
        r.configRevision(),
        r.sourceCommit(),
        rollbackOf,
        scope(r),
        new RequesterView(r.requestedBy(), r.requesterName()),
        r.createdAt(),
        changes == null
            ? null
            : changes.stream()
                .map(c -> new ChangeView(c.commit(), c.description(), c.author(), c.at()))
                .toList());
  }

  static JsonNode scope(ReleaseRow r) {
    RollbackScope s = RollbackScope.fromJson(r.scope());
    return s == null ? null : s.toJsonNode();
  }

  static DeploymentSummary summary(DeploymentRow d) {
    return new DeploymentSummary(
        d.id().toString(),
        d.action(),
        d.environments(),
        d.status(),
        d.detail(),
        d.breakGlass(),
        d.commits(),
        ReleaseService.workflowId(d),
        d.createdAt(),
        d.finishedAt(),
        ChangeSummary.fromJson(d.changes()));
  }

  static EventView event(DeploymentEventRow e) {
    return new EventView(e.seq(), e.at(), e.status(), e.actor(), e.detail());
  }
}
