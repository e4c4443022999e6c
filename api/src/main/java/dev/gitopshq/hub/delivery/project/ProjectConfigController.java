package dev.gitopshq.hub.delivery.project;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.delivery.DeliveryChecks;
import dev.gitopshq.hub.delivery.DeliveryViews.Changed;
import dev.gitopshq.hub.delivery.DeliveryViews.Items;
import dev.gitopshq.hub.delivery.DeliveryViews.Outcome;
import dev.gitopshq.hub.delivery.DeliveryViews.VariableView;
import dev.gitopshq.hub.delivery.project.ProjectViews.BindingView;
import dev.gitopshq.hub.delivery.project.ProjectViews.ProjectEnvironmentView;
import dev.gitopshq.hub.delivery.project.ProjectViews.ProjectTenantView;
import dev.gitopshq.hub.delivery.project.ProjectViews.ValuesView;
import dev.gitopshq.hub.delivery.project.ProjectViews.WorkloadView;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * A project's configuration under {@code /api/v2/projects/{id}}: environments, tenants, workloads,
 * tenant-environment values, variables and bindings. Reads need projects:read, changes
 * projects:write; every change answers with {@code changed}, {@code revision} and {@code commit}.
 */
@RestController
@RequestMapping("/api/v2/projects/{id}")
public class ProjectConfigController {
  private final ProjectEnvironments environments;
  private final ProjectTenants tenants;
  private final ProjectWorkloads workloads;
  private final ProjectValues values;
  private final ProjectVariables variables;
  private final ProjectBindings bindings;

  public ProjectConfigController(
      ProjectEnvironments environments,
      ProjectTenants tenants,
      ProjectWorkloads workloads,
      ProjectValues values,
      ProjectVariables variables,
      ProjectBindings bindings) {
    this.environments = environments;
    this.tenants = tenants;
    this.workloads = workloads;
    this.values = values;
    this.variables = variables;
    this.bindings = bindings;
  }

  private static <T> T body(T body) {
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    return body;
  }

  private static void label(String field, String value) {
    new Checks().dnsLabel(field, value).throwIfInvalid();
  }

  // ---- environments ------------------------------------------------------------------------

  @GetMapping("/environments")
  Items<ProjectEnvironmentView> environments(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return new Items<>(
        environments.environments(caller.orgId(), id).stream()
            .map(ProjectEnvironmentView::of)
            .toList());
  }

  @PutMapping("/environments/{env}")
  Changed<ProjectEnvironmentView> putEnvironment(
      @PathVariable UUID id,
      @PathVariable String env,
      @RequestBody(required = false) ProjectRequests.ProjectEnvironmentPut req) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_WRITE);
    label("environment", env);
    ProjectRequests.ProjectEnvironmentPut r =
        req == null ? new ProjectRequests.ProjectEnvironmentPut(null, null) : req;
    r.validate();
    var a = environments.putEnvironment(caller, id, env, r);
    return Changed.of(a, ProjectEnvironmentView.of(a.value()));
  }

  @DeleteMapping("/environments/{env}")
  Outcome deleteEnvironment(@PathVariable UUID id, @PathVariable String env) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_WRITE);
    return Outcome.of(environments.deleteEnvironment(caller, id, env));
  }

  // ---- tenants --------------------------------------------------------------------------------

  @GetMapping("/tenants")
  Items<ProjectTenantView> tenants(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return new Items<>(
        tenants.tenants(caller.orgId(), id).stream().map(ProjectTenantView::of).toList());
  }

  @PutMapping("/tenants/{tenant}")
  Changed<ProjectTenantView> putTenant(@PathVariable UUID id, @PathVariable String tenant) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_WRITE);
    label("tenant", tenant);
    var a = tenants.putTenant(caller, id, tenant);
    return Changed.of(a, ProjectTenantView.of(a.value()));
  }

  @DeleteMapping("/tenants/{tenant}")
  Outcome deleteTenant(@PathVariable UUID id, @PathVariable String tenant) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_WRITE);
    return Outcome.of(tenants.deleteTenant(caller, id, tenant));
  }

  // ---- workloads ------------------------------------------------------------------------------

  @GetMapping("/workloads")
  Items<WorkloadView> workloads(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return new Items<>(
        workloads.workloads(caller.orgId(), id).stream().map(WorkloadView::of).toList());
  }

  @PostMapping("/workloads")
  @ResponseStatus(HttpStatus.CREATED)
  Changed<WorkloadView> createWorkload(
      @PathVariable UUID id, @RequestBody(required = false) ProjectRequests.WorkloadWrite req) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_WRITE);
    body(req).validate(null);
    var a = workloads.createWorkload(caller, id, req);
    return Changed.of(a, WorkloadView.of(a.value()));
  }

  @GetMapping("/workloads/{name}")
  WorkloadView workload(@PathVariable UUID id, @PathVariable String name) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return WorkloadView.of(workloads.workload(caller.orgId(), id, name));
  }

  @PutMapping("/workloads/{name}")
  Changed<WorkloadView> updateWorkload(
      @PathVariable UUID id,
      @PathVariable String name,
      @RequestBody(required = false) ProjectRequests.WorkloadWrite req) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_WRITE);
    body(req).validate(name);
    var a = workloads.updateWorkload(caller, id, name, req);
    return Changed.of(a, WorkloadView.of(a.value()));
  }

  @DeleteMapping("/workloads/{name}")
  Outcome deleteWorkload(@PathVariable UUID id, @PathVariable String name) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_WRITE);
    return Outcome.of(workloads.deleteWorkload(caller, id, name));
  }

  // ---- tenant-environment values
  // -----------------------------------------------------------------

  @GetMapping("/values")
  Items<ValuesView> allValues(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return new Items<>(values.values(caller.orgId(), id).stream().map(ValuesView::of).toList());
  }

  @GetMapping("/values/{workload}/{tenant}/{environment}")
  ValuesView values(
      @PathVariable UUID id,
      @PathVariable String workload,
      @PathVariable String tenant,
      @PathVariable String environment) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return ValuesView.of(values.values(caller.orgId(), id, workload, tenant, environment));
  }

  @PutMapping("/values/{workload}/{tenant}/{environment}")
  Changed<ValuesView> putValues(
      @PathVariable UUID id,
      @PathVariable String workload,
      @PathVariable String tenant,
      @PathVariable String environment,
      @RequestBody(required = false) ProjectRequests.ValuesPut req) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_WRITE);
    body(req).validate();
    var a = values.putValues(caller, id, workload, tenant, environment, req.values());
    return Changed.of(a, ValuesView.of(a.value()));
  }

  @DeleteMapping("/values/{workload}/{tenant}/{environment}")
  Outcome deleteValues(
      @PathVariable UUID id,
      @PathVariable String workload,
      @PathVariable String tenant,
      @PathVariable String environment) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_WRITE);
    return Outcome.of(values.deleteValues(caller, id, workload, tenant, environment));
  }

  // ---- variables --------------------------------------------------------------------------------

  @GetMapping("/variables")
  Items<VariableView> variables(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return new Items<>(
        variables.variables(caller.orgId(), id).stream().map(VariableView::of).toList());
  }

  @PutMapping("/variables")
  Changed<VariableView> putVariable(
      @PathVariable UUID id,
      @RequestBody(required = false) ProjectRequests.ProjectVariablePut req) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_WRITE);
    body(req).validate();
    var a = variables.putVariable(caller, id, req);
    return Changed.of(a, VariableView.of(a.value()));
  }

  @DeleteMapping("/variables")
  Outcome deleteVariable(
      @PathVariable UUID id,
      @RequestParam(required = false) String scope,
      @RequestParam(required = false) String environment,
      @RequestParam(required = false) String tenant,
      @RequestParam(required = false) String service,
      @RequestParam(required = false) String key) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_WRITE);
    Checks c = new Checks();
    ProjectRequests.scopeFields(c, scope, environment, tenant, service);
    DeliveryChecks.variableKey(c, "key", key);
    c.throwIfInvalid();
    return Outcome.of(
        variables.deleteVariable(caller, id, scope, environment, tenant, service, key));
  }

  // ---- bindings ---------------------------------------------------------------------------------

  @GetMapping("/bindings")
  Items<BindingView> bindings(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return new Items<>(
        bindings.bindings(caller.orgId(), id).stream().map(BindingView::of).toList());
  }

  @PostMapping("/bindings")
  @ResponseStatus(HttpStatus.CREATED)
  Changed<BindingView> createBinding(
      @PathVariable UUID id, @RequestBody(required = false) ProjectRequests.BindingWrite req) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_WRITE);
    body(req).validate(null);
    var a = bindings.createBinding(caller, id, req);
    return Changed.of(a, BindingView.of(a.value()));
  }

  @GetMapping("/bindings/{name}")
  BindingView binding(@PathVariable UUID id, @PathVariable String name) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return BindingView.of(bindings.binding(caller.orgId(), id, name));
  }

  @PutMapping("/bindings/{name}")
  Changed<BindingView> updateBinding(
      @PathVariable UUID id,
      @PathVariable String name,
      @RequestBody(required = false) ProjectRequests.BindingWrite req) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_WRITE);
    body(req).validate(name);
    var a = bindings.updateBinding(caller, id, name, req);
    return Changed.of(a, BindingView.of(a.value()));
  }

  @DeleteMapping("/bindings/{name}")
  Outcome deleteBinding(@PathVariable UUID id, @PathVariable String name) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_WRITE);
    return Outcome.of(bindings.deleteBinding(caller, id, name));
  }
}
