package dev.gitopshq.hub.delivery.project;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.gitopshq.activities.delivery.ProjectFenceRow;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Fence;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.delivery.DeliveryViews.Changed;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/projects/{id}/fence}: where a project's delivery may go and which kinds it may
 * deliver. Members read it (projects:read); only the organization's admins set it (projects:admin),
 * so a project cannot widen its own fence.
 */
@RestController
@RequestMapping("/api/v2/projects/{id}/fence")
public class ProjectFenceController {
  private final ProjectFences fences;

  public ProjectFenceController(ProjectFences fences) {
    this.fences = fences;
  }

  /**
   * A project's fence.
   *
   * @param isDefault true when no admin set one: the lists are {@code TenantFences.DEFAULT}'s
   * @param updatedBy who set it (null for the default)
   */
  public record FenceView(
      List<String> allowedNamespaces,
      List<String> clusterScopedKinds,
      List<String> deniedKinds,
      String updatedBy,
      Instant updatedAt,
      @JsonProperty("default") boolean isDefault) {
    static FenceView of(ProjectFenceRow row) {
      if (row == null) {
        Fence d = Fence.DEFAULT;
        return new FenceView(
            d.allowedNamespaces(), d.clusterScopedKinds(), d.deniedKinds(), null, null, true);
      }
      return new FenceView(
          row.allowedNamespaces(),
          row.clusterScopedKinds(),
          row.deniedKinds(),
          row.updatedBy(),
          row.updatedAt(),
          false);
    }
  }

  @GetMapping
  FenceView get(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return FenceView.of(fences.fence(caller.orgId(), id).orElse(null));
  }

  @PutMapping
  Changed<FenceView> put(
      @PathVariable UUID id, @RequestBody(required = false) ProjectFences.FencePut req) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_ADMIN);
    if (req == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    req.validate();
    var a = fences.put(caller, id, req);
    return Changed.of(a, FenceView.of(a.value()));
  }
}
