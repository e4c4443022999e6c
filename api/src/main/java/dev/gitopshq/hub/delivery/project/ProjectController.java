package dev.gitopshq.hub.delivery.project;

import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.delivery.ProjectSnapshot;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.delivery.DeliveryViews.Changed;
import dev.gitopshq.hub.delivery.DeliveryViews.Items;
import dev.gitopshq.hub.delivery.project.ProjectViews.ProjectView;
import dev.gitopshq.hub.delivery.project.ProjectViews.Repository;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.team.Access;
import dev.gitopshq.hub.web.ApiException;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/projects}: projects with their hosted repository, their configuration history and
 * snapshot, and the image-update webhook secret.
 */
@RestController
@RequestMapping("/api/v2/projects")
public class ProjectController {
  private final ProjectService projects;
  private final Access access;

  public ProjectController(ProjectService projects, Access access) {
    this.projects = projects;
    this.access = access;
  }

  ProjectView view(ProjectRow p) {
    return new ProjectView(
        p.id(),
        p.name(),
        p.description(),
        p.configRevision(),
        p.generatedRevision(),
        new Repository(projects.cloneUrl(p.orgId(), p.name()), ProjectRepos.MAIN),
        p.hasWebhookSecret(),
        p.createdBy(),
        p.createdAt(),
        p.updatedAt());
  }

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  Changed<ProjectView> create(@RequestBody(required = false) ProjectRequests.ProjectCreate req) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_ADMIN);
    if (req == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    req.validate();
    var a = projects.create(caller, req);
    return Changed.of(a, view(a.value()));
  }

  @GetMapping
  Items<ProjectView> list() {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    // A member or viewer lists the projects their teams have a grant on, no others.
    return new Items<>(
        projects.list(caller.orgId()).stream()
            .filter(p -> access.projectRole(caller, p.id()).isPresent())
            .map(this::view)
            .toList());
  }

  @GetMapping("/{id}")
  ProjectView get(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return view(projects.get(caller.orgId(), id));
  }

  @PatchMapping("/{id}")
  ProjectView update(
      @PathVariable UUID id, @RequestBody(required = false) ProjectRequests.ProjectUpdate req) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_WRITE);
    if (req == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    req.validate();
    return view(projects.describe(caller, id, req.description()));
  }

  @DeleteMapping("/{id}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void delete(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_ADMIN);
    projects.delete(caller, id);
  }

  @GetMapping("/{id}/commits")
  Items<ProjectService.CommitView> commits(
      @PathVariable UUID id, @RequestParam(defaultValue = "50") int limit) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    if (limit < 1 || limit > 500) {
      throw ApiException.invalid("limit", "must be between 1 and 500");
    }
    return new Items<>(projects.commits(caller.orgId(), id, limit));
  }

  /** The resolved configuration, as delivery generation reads it. */
  @GetMapping("/{id}/config")
  ProjectSnapshot config(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return projects.snapshot(caller.orgId(), id);
  }

  record Secret(String secret, String header, String algorithm) {}

  /** A new image-update webhook secret; the answer is the only time it is shown. */
  @PostMapping("/{id}/webhook-secret")
  @ResponseStatus(HttpStatus.CREATED)
  Secret webhookSecret(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_ADMIN);
    return new Secret(
        projects.newWebhookSecret(caller, id), ProjectService.WEBHOOK_SIGNATURE_HEADER, "sha256");
  }
}
