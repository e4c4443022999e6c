package dev.gitopshq.hub.delivery.resources;

import dev.gitopshq.activities.delivery.SourceKind;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.delivery.DeliveryViews.Items;
import dev.gitopshq.hub.delivery.DeliveryViews.OrgChanged;
import dev.gitopshq.hub.delivery.DeliveryViews.VariableView;
import dev.gitopshq.hub.delivery.ProjectChanges;
import dev.gitopshq.hub.delivery.resources.ResourceViews.EnvironmentView;
import dev.gitopshq.hub.delivery.resources.ResourceViews.SourceView;
import dev.gitopshq.hub.delivery.resources.ResourceViews.TenantView;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Organization-level delivery resources: {@code /api/v2/environments}, {@code /tenants}, {@code
 * /manifest-bundles}, {@code /kustomize-bases} and {@code /variables}. Reads need projects:read,
 * changes org:write.
 */
@RestController
@RequestMapping("/api/v2")
public class OrgResourceController {
  private final OrgResources org;

  public OrgResourceController(OrgResources org) {
    this.org = org;
  }

  private static <T> T body(T body) {
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    return body;
  }

  // ---- environments ------------------------------------------------------------------------

  @GetMapping("/environments")
  Items<EnvironmentView> environments() {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return new Items<>(org.environments(caller.orgId()).stream().map(EnvironmentView::of).toList());
  }

  @GetMapping("/environments/{name}")
  EnvironmentView environment(@PathVariable String name) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return EnvironmentView.of(org.environment(caller.orgId(), name));
  }

  @PostMapping("/environments")
  @ResponseStatus(HttpStatus.CREATED)
  OrgChanged<EnvironmentView> createEnvironment(
      @RequestBody(required = false) ResourceRequests.EnvironmentCreate req) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    body(req).validate();
    var a = org.createEnvironment(caller, req);
    return OrgChanged.of(a, EnvironmentView.of(a.value()));
  }

  @PatchMapping("/environments/{name}")
  EnvironmentView updateEnvironment(
      @PathVariable String name,
      @RequestBody(required = false) ResourceRequests.EnvironmentUpdate req) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    body(req).validate();
    return EnvironmentView.of(org.updateEnvironment(caller, name, req));
  }

  record Order(List<EnvironmentView> items, List<ProjectChanges.ProjectOutcome> projects) {}

  @PutMapping("/environments/order")
  Order reorder(@RequestBody(required = false) ResourceRequests.EnvironmentOrder req) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    var a = org.reorderEnvironments(caller, body(req));
    return new Order(a.value().stream().map(EnvironmentView::of).toList(), a.projects());
  }

  @DeleteMapping("/environments/{name}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void deleteEnvironment(@PathVariable String name) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    org.deleteEnvironment(caller, name);
  }

  // ---- tenants --------------------------------------------------------------------------------

  @GetMapping("/tenants")
  Items<TenantView> tenants() {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return new Items<>(org.tenants(caller.orgId()).stream().map(TenantView::of).toList());
  }

  @GetMapping("/tenants/{name}")
  TenantView tenant(@PathVariable String name) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return TenantView.of(org.tenant(caller.orgId(), name));
  }

  @PostMapping("/tenants")
  @ResponseStatus(HttpStatus.CREATED)
  TenantView createTenant(@RequestBody(required = false) ResourceRequests.TenantCreate req) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    body(req).validate();
    return TenantView.of(org.createTenant(caller, req));
  }

  @PatchMapping("/tenants/{name}")
  TenantView updateTenant(
      @PathVariable String name, @RequestBody(required = false) ResourceRequests.TenantUpdate req) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    body(req).validate();
    return TenantView.of(org.updateTenant(caller, name, req));
  }

  @DeleteMapping("/tenants/{name}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void deleteTenant(@PathVariable String name) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    org.deleteTenant(caller, name);
  }

  // ---- manifest bundles and Kustomize bases -----------------------------------------------------

  private static SourceKind kind(String collection) {
    return switch (collection) {
      case "manifest-bundles" -> SourceKind.MANIFESTS;
      case "kustomize-bases" -> SourceKind.KUSTOMIZE;
      default -> throw ApiException.notFound("resource");
    };
  }

  private static final String SOURCES = "/{collection:manifest-bundles|kustomize-bases}";

  @GetMapping(SOURCES)
  Items<SourceView> sources(@PathVariable String collection) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return new Items<>(
        org.sources(kind(collection), caller.orgId()).stream()
            .map(s -> SourceView.of(s, false))
            .toList());
  }

  @GetMapping(SOURCES + "/{name}")
  SourceView source(@PathVariable String collection, @PathVariable String name) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return SourceView.of(org.source(kind(collection), caller.orgId(), name), true);
  }

  @PostMapping(SOURCES)
  @ResponseStatus(HttpStatus.CREATED)
  SourceView createSource(
      @PathVariable String collection,
      @RequestBody(required = false) ResourceRequests.SourceWrite req) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    SourceKind kind = kind(collection);
    body(req).validate(kind, null);
    return SourceView.of(org.createSource(caller, kind, req), true);
  }

  @PutMapping(SOURCES + "/{name}")
  OrgChanged<SourceView> updateSource(
      @PathVariable String collection,
      @PathVariable String name,
      @RequestBody(required = false) ResourceRequests.SourceWrite req) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    SourceKind kind = kind(collection);
    body(req).validate(kind, name);
    var a = org.updateSource(caller, kind, name, req);
    return OrgChanged.of(a, SourceView.of(a.value(), true));
  }

  @DeleteMapping(SOURCES + "/{name}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void deleteSource(@PathVariable String collection, @PathVariable String name) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    org.deleteSource(caller, kind(collection), name);
  }

  // ---- org variables ----------------------------------------------------------------------------

  @GetMapping("/variables")
  Items<VariableView> variables() {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return new Items<>(org.orgVariables(caller.orgId()).stream().map(VariableView::of).toList());
  }

  @PutMapping("/variables/{key}")
  OrgChanged<VariableView> setVariable(
      @PathVariable String key, @RequestBody(required = false) ResourceRequests.VariableValue req) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    body(req).validate(key);
    var a = org.setOrgVariable(caller, key, req.value());
    return OrgChanged.of(a, VariableView.of(a.value()));
  }

  record Removed(List<ProjectChanges.ProjectOutcome> projects) {}

  @DeleteMapping("/variables/{key}")
  Removed deleteVariable(@PathVariable String key) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    return new Removed(org.deleteOrgVariable(caller, key).projects());
  }
}
