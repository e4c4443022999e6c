package dev.gitopshq.hub.cluster;

import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.approvalpolicy.ApprovalPolicyService;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.team.Access;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.workflows.rotation.RotationRequest;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** {@code /api/v2/clusters}: register clusters, read their status, issue join tokens. */
@RestController
@RequestMapping("/api/v2/clusters")
public class ClusterController {
  private final ClusterService clusters;
  private final ClusterAcceptance acceptance;
  private final AgentHealth health;
  private final ApprovalPolicyService approvalPolicies;
  private final Clock clock;
  private final Access access;

  /**
   * A cluster id in a path, never one of the collection's own words: PATCH or DELETE of {@code
   * /clusters/acceptance} or {@code /clusters/selector-preview} is a 405 (those paths have other
   * methods), not a cluster id that has the wrong format. (A path pattern's regex matches within
   * one segment and may not name '/'.)
   */
  private static final String ID = "/{id:(?!acceptance$|selector-preview$).+}";

  public ClusterController(
      ClusterService clusters,
      ClusterAcceptance acceptance,
      AgentHealth health,
      ApprovalPolicyService approvalPolicies,
      Clock clock,
      Access access) {
    this.access = access;
    this.approvalPolicies = approvalPolicies;
    this.clusters = clusters;
    this.acceptance = acceptance;
    this.health = health;
    this.clock = clock;
  }

  /** The registration answer: the token is in this response and nowhere else, ever. */
  record RegistrationResponse(
      ClusterView cluster, String registrationToken, Instant expiresAt, String installCommand) {}

  record ClusterList(List<ClusterView> items) {}

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  RegistrationResponse create(@RequestBody ClusterRequests.Create body) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    body.validate();
    ClusterService.Registered r = clusters.create(caller, body);
    return new RegistrationResponse(
        view(r.cluster()), r.token().token(), r.token().expiresAt(), r.installCommand());
  }

  @GetMapping
  ClusterList list(@RequestParam(name = "label", required = false) List<String> label) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    Map<String, String> filter = new TreeMap<>();
    if (label != null) {
      for (String l : label) {
        int colon = l.indexOf(':');
        if (colon <= 0) {
          throw ApiException.invalid("label", "must be key:value, e.g. tier:production");
        }
        filter.put(l.substring(0, colon), l.substring(colon + 1));
      }
    }
    // A member or viewer lists the clusters their teams' grants match, no others.
    List<ClusterRow> rows =
        clusters.list(caller.orgId(), filter).stream()
            .filter(r -> access.clusterRole(caller, r).isPresent())
            .toList();
    Instant now = clock.instant();
    Map<UUID, AgentHealth.Figures> figures = health.of(caller.orgId(), rows, now);
    var inForce = approvalPolicies.inForce(caller.orgId(), rows);
    return new ClusterList(
        rows.stream()
            .map(
                r ->
                    ClusterView.of(
                        r,
                        now,
                        clusters.disconnectTimeout(),
                        figures.get(r.id()),
                        inForce.get(r.id())))
            .toList());
  }

  @GetMapping("/{id}")
  ClusterView get(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    return view(clusters.get(caller.orgId(), id));
  }

  @PatchMapping(ID)
  ClusterView update(@PathVariable UUID id, @RequestBody ClusterRequests.Update body) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    body.validate();
    return view(clusters.update(caller, id, body));
  }

  /** A fresh registration token (e.g. the first one expired, or the agent must be reinstalled). */
  @PostMapping("/{id}/join-token")
  @ResponseStatus(HttpStatus.CREATED)
  RegistrationResponse joinToken(
      @PathVariable UUID id, @RequestBody(required = false) ClusterRequests.JoinToken body) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    ClusterService.Registered r =
        clusters.joinToken(caller, id, body == null ? null : body.requireAcceptance());
    return new RegistrationResponse(
        view(clusters.get(caller.orgId(), id)),
        r.token().token(),
        r.token().expiresAt(),
        r.installCommand());
  }

  /**
   * Accepts a cluster whose agent waits for an admin (hub acceptance): the agent gets work at once
   * (its waiting stream is ended and it reconnects). 409 when the cluster does not wait.
   */
  @PostMapping("/{id}/accept")
  ClusterView accept(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    return view(acceptance.accept(caller, id));
  }

  /**
   * Rejects a cluster whose agent waits for an admin: its agent token is revoked and its stream
   * closed; the cluster shows Rejected until a new join token registers an agent again.
   */
  @PostMapping("/{id}/reject")
  ClusterView reject(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    return view(acceptance.reject(caller, id));
  }

  /** The organization's default for hub acceptance of newly registered agents. */
  record AcceptancePolicyView(boolean requireAcceptance) {}

  @GetMapping("/acceptance")
  AcceptancePolicyView acceptancePolicy() {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    return new AcceptancePolicyView(acceptance.required(caller.orgId()));
  }

  @PutMapping("/acceptance")
  AcceptancePolicyView setAcceptancePolicy(@RequestBody ClusterRequests.AcceptancePolicy body) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    body.validate();
    return new AcceptancePolicyView(acceptance.setRequired(caller, body.requireAcceptance()));
  }

  record Rotation(String rotationId, String workflowId) {}

  /** Rotates the agent's token; the rotation runs as a workflow (see docs/agent-install.md). */
  @PostMapping("/{id}/rotate-token")
  @ResponseStatus(HttpStatus.ACCEPTED)
  Rotation rotateToken(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    String rotationId = clusters.rotateToken(caller, id);
    return new Rotation(rotationId, RotationRequest.workflowId(rotationId));
  }

  /** Deregisters the cluster; its agent's stream is closed and the agent stops (exit code 3). */
  @DeleteMapping(ID)
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void delete(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    clusters.delete(caller, id);
  }

  private ClusterView view(ClusterRow row) {
    Instant now = clock.instant();
    return ClusterView.of(
        row,
        now,
        clusters.disconnectTimeout(),
        health.of(row.orgId(), List.of(row), now).get(row.id()),
        approvalPolicies.inForce(row));
  }
}
