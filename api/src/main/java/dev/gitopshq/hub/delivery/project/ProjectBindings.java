package dev.gitopshq.hub.delivery.project;

import dev.gitopshq.activities.delivery.BindingMapper;
import dev.gitopshq.activities.delivery.BindingRow;
import dev.gitopshq.activities.delivery.BindingTargetRow;
import dev.gitopshq.activities.delivery.DeliveryJson;
import dev.gitopshq.activities.delivery.ProjectEnvironmentMapper;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.delivery.ProjectTenantMapper;
import dev.gitopshq.activities.delivery.SourceKind;
import dev.gitopshq.activities.delivery.SourceMapper;
import dev.gitopshq.activities.delivery.SourceRow;
import dev.gitopshq.hub.delivery.ProjectChanges.Applied;
import dev.gitopshq.hub.delivery.ProjectChanges.Message;
import dev.gitopshq.hub.delivery.ProjectChanges.Step;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.Checks;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A project's bindings: manifest bundles and Kustomize bases delivered to tenants in environments,
 * with their overlays.
 */
@Service
public class ProjectBindings {
  private final ConfigSupport support;
  private final BindingMapper bindings;
  private final SourceMapper sources;
  private final ProjectTenantMapper tenants;
  private final ProjectEnvironmentMapper environments;
  private final Clock clock;

  public ProjectBindings(
      ConfigSupport support,
      BindingMapper bindings,
      SourceMapper sources,
      ProjectTenantMapper tenants,
      ProjectEnvironmentMapper environments,
      Clock clock) {
    this.support = support;
    this.bindings = bindings;
    this.sources = sources;
    this.tenants = tenants;
    this.environments = environments;
    this.clock = clock;
  }

  public record Binding(BindingRow row, List<BindingTargetRow> targets) {}

  @Transactional(readOnly = true)
  public List<Binding> bindings(UUID orgId, UUID projectId) {
    support.project(orgId, projectId);
    return bindingsOf(orgId, projectId);
  }

  @Transactional(readOnly = true)
  public Binding binding(UUID orgId, UUID projectId, String name) {
    ProjectRow p = support.project(orgId, projectId);
    return bindingsOf(orgId, projectId).stream()
        .filter(b -> b.row().name().equals(name))
        .findFirst()
        .orElseThrow(ConfigSupport.notInProject("binding " + name, p));
  }

  private List<Binding> bindingsOf(UUID orgId, UUID projectId) {
    List<BindingTargetRow> targets = bindings.targets(orgId, projectId);
    return bindings.list(orgId, projectId).stream()
        .map(
            b ->
                new Binding(b, targets.stream().filter(t -> t.bindingId().equals(b.id())).toList()))
        .toList();
  }

  /** Resolves a binding body's source and targets, or a 400 naming each bad field. */
  private record Resolved(
      SourceKind kind, SourceRow source, List<UUID[]> targets, String overlays) {}

  private Resolved resolve(ProjectRow p, ProjectRequests.BindingWrite req) {
    UUID orgId = p.orgId();
    SourceKind kind = SourceKind.ofBindingKind(req.kind());
    Checks c = new Checks();
    Optional<SourceRow> source = sources.findByName(kind, orgId, req.source());
    if (source.isEmpty()) {
      c.fail("source", "no " + kind.label() + " '" + req.source() + "' in the organization");
    }
    List<UUID[]> targets = new ArrayList<>();
    List<ProjectRequests.TargetRef> refs = req.targets() == null ? List.of() : req.targets();
    Map<String, UUID> tenantIds = new LinkedHashMap<>();
    tenants.list(orgId, p.id()).forEach(t -> tenantIds.put(t.tenant(), t.tenantId()));
    Map<String, UUID> envIds = new LinkedHashMap<>();
    environments.list(orgId, p.id()).forEach(e -> envIds.put(e.environment(), e.environmentId()));
    for (int i = 0; i < refs.size(); i++) {
      UUID t = tenantIds.get(refs.get(i).tenant());
      UUID e = envIds.get(refs.get(i).environment());
      if (t == null) {
        c.fail(
            "targets[" + i + "].tenant",
            "'" + refs.get(i).tenant() + "' is not a tenant of project " + p.name());
      }
      if (e == null) {
        c.fail(
            "targets[" + i + "].environment",
            "'" + refs.get(i).environment() + "' is not an environment of project " + p.name());
      }
      targets.add(new UUID[] {t, e});
    }
    c.throwIfInvalid();
    List<Map<String, Object>> overlays = new ArrayList<>();
    for (ProjectRequests.OverlayRef o :
        req.overlays() == null ? List.<ProjectRequests.OverlayRef>of() : req.overlays()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("kind", o.kind());
      m.put("name", o.name() == null || o.name().isEmpty() ? null : o.name());
      m.put("patch", o.patch());
      overlays.add(m);
    }
    return new Resolved(kind, source.get(), targets, DeliveryJson.write(overlays));
  }

  private void writeTargets(UUID orgId, UUID projectId, UUID bindingId, List<UUID[]> targets) {
    bindings.deleteTargets(orgId, bindingId);
    for (UUID[] t : targets) {
      bindings.insertTarget(orgId, bindingId, projectId, t[0], t[1]);
    }
  }

  private static String label(Resolved r, String name) {
    return (r.kind() == SourceKind.KUSTOMIZE ? "Kustomize binding " : "manifest binding ")
        + name
        + " of "
        + r.kind().label()
        + " "
        + r.source().name();
  }

  public Applied<Binding> createBinding(
      HubPrincipal caller, UUID projectId, ProjectRequests.BindingWrite req) {
    UUID orgId = caller.orgId();
    return support.apply(
        caller,
        projectId,
        p -> {
          support.nameIsFree(orgId, projectId, req.name());
          Resolved r = resolve(p, req);
          Instant now = clock.instant();
          UUID id = UUID.randomUUID();
          bindings.insert(
              new BindingRow(
                  id,
                  orgId,
                  projectId,
                  req.name(),
                  req.kind(),
                  r.source().id(),
                  null,
                  r.overlays(),
                  now,
                  now,
                  DeliveryJson.write(req.kindScopes() == null ? Map.of() : req.kindScopes())));
          writeTargets(orgId, projectId, id, r.targets());
          return new Step<>(
              bindingsOf(orgId, projectId).stream()
                  .filter(b -> b.row().id().equals(id))
                  .findFirst()
                  .orElseThrow(),
              Message.of(
                  "Create " + label(r, req.name()), "binding.created", "service", req.name()));
        });
  }

  public Applied<Binding> updateBinding(
      HubPrincipal caller, UUID projectId, String name, ProjectRequests.BindingWrite req) {
    UUID orgId = caller.orgId();
    return support.apply(
        caller,
        projectId,
        p -> {
          BindingRow b =
              bindings
                  .findByName(orgId, projectId, name)
                  .orElseThrow(ConfigSupport.notInProject("binding " + name, p));
          Resolved r = resolve(p, req);
          bindings.update(
              orgId, b.id(), req.kind(), r.source().id(), r.overlays(), clock.instant());
          bindings.setKindScopes(
              orgId,
              projectId,
              name,
              DeliveryJson.write(req.kindScopes() == null ? Map.of() : req.kindScopes()));
          writeTargets(orgId, projectId, b.id(), r.targets());
          return new Step<>(
              bindingsOf(orgId, projectId).stream()
                  .filter(x -> x.row().id().equals(b.id()))
                  .findFirst()
                  .orElseThrow(),
              Message.of("Update " + label(r, name), "binding.updated", "service", name));
        });
  }

  public Applied<Void> deleteBinding(HubPrincipal caller, UUID projectId, String name) {
    UUID orgId = caller.orgId();
    return support.apply(
        caller,
        projectId,
        p -> {
          BindingRow b =
              bindings
                  .findByName(orgId, projectId, name)
                  .orElseThrow(ConfigSupport.notInProject("binding " + name, p));
          bindings.delete(orgId, b.id());
          return ConfigSupport.removal(
              Message.of("Delete binding " + name, "binding.deleted", "service", name));
        });
  }
}
