package dev.gitopshq.hub.credential;

import dev.gitopshq.activities.credential.AssignmentRow;
import dev.gitopshq.activities.credential.CredentialRow;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/credentials} (credentials:write): the organization's synced credentials, and
 * {@code /api/v2/clusters/{id}/credentials} (clusters:read): a cluster's sync status. Values are
 * write-only: no answer contains them, only key names and, for tls, the certificate fingerprint.
 */
@RestController
public class CredentialController {
  private final CredentialService service;

  public CredentialController(CredentialService service) {
    this.service = service;
  }

  /** The body of POST: values as strings by Secret key. */
  record CreateCredential(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String name,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String type,
      String description,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) Map<String, String> data) {
    @Override
    public String toString() {
      return "CreateCredential[name=" + name + ", type=" + type + "]";
    }
  }

  /** The body of PUT/PATCH: new values and/or a new description. */
  record UpdateCredential(String description, Map<String, String> data) {
    @Override
    public String toString() {
      return "UpdateCredential[]";
    }
  }

  record AssignmentInput(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) UUID clusterId,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) List<String> namespaces) {}

  record AssignRequest(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) List<AssignmentInput> assignments) {}

  /**
   * One target of a credential. {@code deniedByPolicy}: the organization's credentials policy
   * denied it; it is failed and {@code error} holds the policy's reasons.
   */
  record TargetView(
      String clusterId,
      String clusterName,
      String namespace,
      String status,
      Instant lastSyncedAt,
      String error,
      Long syncedVersion,
      boolean deniedByPolicy) {
    static TargetView of(AssignmentRow a) {
      return new TargetView(
          a.clusterId().toString(),
          a.clusterName(),
          a.namespace(),
          a.status(),
          a.lastSyncedAt(),
          a.error(),
          a.syncedVersion(),
          a.policyDenied());
    }
  }

  record CredentialView(
      String id,
      String name,
      String type,
      String description,
      long version,
      List<String> keys,
      String fingerprint,
      Instant createdAt,
      Instant updatedAt,
      List<TargetView> targets) {
    static CredentialView of(CredentialRow r, List<AssignmentRow> targets) {
      return new CredentialView(
          r.id().toString(),
          r.name(),
          r.type(),
          r.description(),
          r.version(),
          r.keyNames(),
          r.fingerprint(),
          r.createdAt(),
          r.updatedAt(),
          targets.stream().map(TargetView::of).toList());
    }
  }

  record CredentialList(List<CredentialView> items) {}

  /**
   * One row of a cluster's Credentials tab. {@code deniedByPolicy}: the organization's credentials
   * policy denied the target; it is failed and {@code error} holds the policy's reasons.
   */
  record ClusterCredentialView(
      String credentialId,
      String name,
      String type,
      String namespace,
      String status,
      Instant lastSyncedAt,
      String error,
      long version,
      Long syncedVersion,
      boolean deniedByPolicy) {}

  record ClusterCredentialList(List<ClusterCredentialView> items) {}

  @PostMapping("/api/v2/credentials")
  @ResponseStatus(HttpStatus.CREATED)
  CredentialView create(@RequestBody CreateCredential body) {
    HubPrincipal caller = Authz.require(Permission.CREDENTIALS_WRITE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    CredentialRow row =
        service.create(caller, body.name(), body.type(), body.description(), body.data());
    return CredentialView.of(row, List.of());
  }

  @GetMapping("/api/v2/credentials")
  CredentialList list() {
    HubPrincipal caller = Authz.require(Permission.CREDENTIALS_WRITE);
    List<CredentialView> out = new ArrayList<>();
    for (CredentialRow r : service.list(caller.orgId())) {
      out.add(CredentialView.of(r, service.assignments(caller.orgId(), r.id())));
    }
    return new CredentialList(out);
  }

  @GetMapping("/api/v2/credentials/{id}")
  CredentialView get(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CREDENTIALS_WRITE);
    return CredentialView.of(
        service.get(caller.orgId(), id), service.assignments(caller.orgId(), id));
  }

  @PutMapping("/api/v2/credentials/{id}")
  CredentialView replace(@PathVariable UUID id, @RequestBody UpdateCredential body) {
    return update(id, body);
  }

  @PatchMapping("/api/v2/credentials/{id}")
  CredentialView update(@PathVariable UUID id, @RequestBody UpdateCredential body) {
    HubPrincipal caller = Authz.require(Permission.CREDENTIALS_WRITE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    CredentialRow row = service.update(caller, id, body.description(), body.data());
    return CredentialView.of(row, service.assignments(caller.orgId(), id));
  }

  @DeleteMapping("/api/v2/credentials/{id}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void delete(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CREDENTIALS_WRITE);
    service.delete(caller, id);
  }

  /** Replaces the credential's targets: every cluster with its namespaces (empty: unassign all). */
  @PutMapping("/api/v2/credentials/{id}/assignments")
  CredentialView assign(@PathVariable UUID id, @RequestBody AssignRequest body) {
    HubPrincipal caller = Authz.require(Permission.CREDENTIALS_WRITE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    List<CredentialService.Target> targets =
        body.assignments() == null
            ? null
            : body.assignments().stream()
                .map(
                    a ->
                        a == null
                            ? null
                            : new CredentialService.Target(a.clusterId(), a.namespaces()))
                .toList();
    service.assign(caller, id, targets);
    return get(id);
  }

  @GetMapping("/api/v2/clusters/{id}/credentials")
  ClusterCredentialList onCluster(@PathVariable("id") UUID clusterId) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    Map<String, ClusterCredentialView> rows = new LinkedHashMap<>();
    for (AssignmentRow a : service.onCluster(caller.orgId(), clusterId)) {
      rows.put(
          a.credentialId() + "/" + a.namespace(),
          new ClusterCredentialView(
              a.credentialId().toString(),
              a.credentialName(),
              a.credentialType(),
              a.namespace(),
              a.status(),
              a.lastSyncedAt(),
              a.error(),
              a.credentialVersion(),
              a.syncedVersion(),
              a.policyDenied()));
    }
    return new ClusterCredentialList(List.copyOf(rows.values()));
  }
}
