package dev.gitopshq.hub.delivery.resources;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.delivery.DeliveryJson;
import dev.gitopshq.activities.delivery.EnvironmentMapper;
import dev.gitopshq.activities.delivery.EnvironmentRow;
import dev.gitopshq.activities.delivery.SourceKind;
import dev.gitopshq.activities.delivery.SourceMapper;
import dev.gitopshq.activities.delivery.SourceRow;
import dev.gitopshq.activities.delivery.TenantMapper;
import dev.gitopshq.activities.delivery.TenantRow;
import dev.gitopshq.activities.delivery.VariableMapper;
import dev.gitopshq.activities.delivery.VariableRow;
import dev.gitopshq.hub.delivery.Author;
import dev.gitopshq.hub.delivery.ProjectChanges;
import dev.gitopshq.hub.delivery.ProjectChanges.Message;
import dev.gitopshq.hub.delivery.ProjectChanges.OrgApplied;
import dev.gitopshq.hub.delivery.ProjectChanges.Step;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Organization-level resources: environments, tenants, manifest bundles, Kustomize bases and org
 * variables. Changes that projects' configuration depends on (the environments' order, a bundle's
 * or base's files, org variables) go through {@link ProjectChanges#applyOrg}, which commits into
 * every project whose configuration they change.
 */
@Service
public class OrgResources {
  private final EnvironmentMapper environments;
  private final TenantMapper tenants;
  private final SourceMapper sources;
  private final VariableMapper variables;
  private final ProjectChanges changes;
  private final AuditLog audit;
  private final Clock clock;

  public OrgResources(
      EnvironmentMapper environments,
      TenantMapper tenants,
      SourceMapper sources,
      VariableMapper variables,
      ProjectChanges changes,
      AuditLog audit,
      Clock clock) {
    this.environments = environments;
    this.tenants = tenants;
    this.sources = sources;
    this.variables = variables;
    this.changes = changes;
    this.audit = audit;
    this.clock = clock;
  }

  // ---- environments ------------------------------------------------------------------------

  @Transactional(readOnly = true)
  public List<EnvironmentRow> environments(UUID orgId) {
    return environments.list(orgId);
  }

  @Transactional(readOnly = true)
  public EnvironmentRow environment(UUID orgId, String name) {
    return environments
        .findByName(orgId, name)
        .orElseThrow(() -> ApiException.notFound("environment " + name));
  }

  /** Adds an environment at {@code position} (default: last); later ones move down. */
  public OrgApplied<EnvironmentRow> createEnvironment(
      HubPrincipal caller, ResourceRequests.EnvironmentCreate req) {
    UUID orgId = caller.orgId();
    return changes.applyOrg(
        orgId,
        Author.of(caller),
        () -> {
          environments.lockOrder(orgId);
          if (environments.findByName(orgId, req.name()).isPresent()) {
            throw ApiException.conflict("an environment named '" + req.name() + "' already exists");
          }
          List<EnvironmentRow> all = environments.list(orgId);
          normalize(orgId, all);
          int position = req.position() == null ? all.size() : Math.min(req.position(), all.size());
          environments.shiftFrom(orgId, position);
          EnvironmentRow row =
              new EnvironmentRow(
                  UUID.randomUUID(),
                  orgId,
                  req.name(),
                  position,
                  nz(req.description()),
                  clock.instant(),
                  ResourceRequests.verifyTimeoutOrNull(req.verifyTimeoutSeconds()));
          try {
            environments.insert(row);
          } catch (DuplicateKeyException e) {
            throw ApiException.conflict("an environment named '" + req.name() + "' already exists");
          }
          audit.record(
              orgId,
              caller.actor(),
              "environment.created",
              "environment",
              row.id().toString(),
              Map.of("name", row.name(), "position", position, "description", row.description()));
          return new Step<>(
              environments.findByName(orgId, req.name()).orElseThrow(),
              Message.of(
                  "Add organization environment " + req.name() + " at position " + position,
                  "environment.created",
                  "environment",
                  req.name()));
        });
  }

  @Transactional
  public EnvironmentRow updateEnvironment(
      HubPrincipal caller, String name, ResourceRequests.EnvironmentUpdate req) {
    EnvironmentRow env = environment(caller.orgId(), name);
    Map<String, Object> changed = new LinkedHashMap<>();
    changed.put("name", name);
    if (req.description() != null) {
      environments.setDescription(caller.orgId(), env.id(), req.description());
      changed.put("description", Map.of("from", env.description(), "to", req.description()));
    }
    if (req.verifyTimeoutSeconds() != null) {
      Integer seconds = ResourceRequests.verifyTimeoutOrNull(req.verifyTimeoutSeconds());
      environments.setVerifyTimeout(caller.orgId(), env.id(), seconds);
      Map<String, Object> fromTo = new LinkedHashMap<>();
      fromTo.put("from", env.verifyTimeoutSeconds());
      fromTo.put("to", seconds);
      changed.put("verifyTimeoutSeconds", fromTo);
    }
    audit.record(
        caller.orgId(),
        caller.actor(),
        "environment.updated",
        "environment",
        env.id().toString(),
        changed);
    return environment(caller.orgId(), name);
  }

  /** Puts the environments in a new order; projects' environment files carry the positions. */
  public OrgApplied<List<EnvironmentRow>> reorderEnvironments(
      HubPrincipal caller, ResourceRequests.EnvironmentOrder req) {
    UUID orgId = caller.orgId();
    return changes.applyOrg(
        orgId,
        Author.of(caller),
        () -> {
          environments.lockOrder(orgId);
          List<EnvironmentRow> all = environments.list(orgId);
          req.validate(all.stream().map(EnvironmentRow::name).toList());
          Map<String, EnvironmentRow> byName = new TreeMap<>();
          all.forEach(e -> byName.put(e.name(), e));
          for (int i = 0; i < req.order().size(); i++) {
            environments.setPosition(orgId, byName.get(req.order().get(i)).id(), i);
          }
          audit.record(
              orgId,
              caller.actor(),
              "environment.reordered",
              "environment",
              "order",
              Map.of("from", all.stream().map(EnvironmentRow::name).toList(), "to", req.order()));
          return new Step<>(
              environments.list(orgId),
              Message.of(
                  "Reorder environments: " + String.join(", ", req.order()),
                  "environment.reordered"));
        });
  }

  @Transactional
  public void deleteEnvironment(HubPrincipal caller, String name) {
    UUID orgId = caller.orgId();
    environments.lockOrder(orgId);
    EnvironmentRow env = environment(orgId, name);
    List<String> using = environments.projectsUsing(orgId, env.id());
    if (!using.isEmpty()) {
      throw ApiException.conflict(
          "environment '"
              + name
              + "' is used by projects "
              + using
              + "; remove it from them first");
    }
    environments.delete(orgId, env.id());
    normalize(orgId, environments.list(orgId));
    audit.record(
        orgId,
        caller.actor(),
        "environment.deleted",
        "environment",
        env.id().toString(),
        Map.of("name", name));
  }

  /** Keeps positions 0..n-1 in order, so "position" always means the index. */
  private void normalize(UUID orgId, List<EnvironmentRow> ordered) {
    for (int i = 0; i < ordered.size(); i++) {
      if (ordered.get(i).position() != i) {
        environments.setPosition(orgId, ordered.get(i).id(), i);
      }
    }
  }

  // ---- tenants ------------------------------------------------------------------------------

  @Transactional(readOnly = true)
  public List<TenantRow> tenants(UUID orgId) {
    return tenants.list(orgId);
  }

  @Transactional(readOnly = true)
  public TenantRow tenant(UUID orgId, String name) {
    return tenants
        .findByName(orgId, name)
        .orElseThrow(() -> ApiException.notFound("tenant " + name));
  }

  @Transactional
  public TenantRow createTenant(HubPrincipal caller, ResourceRequests.TenantCreate req) {
    UUID orgId = caller.orgId();
    if (tenants.findByName(orgId, req.name()).isPresent()) {
      throw ApiException.conflict("a tenant named '" + req.name() + "' already exists");
    }
    Map<String, String> labels = req.labels() == null ? Map.of() : new TreeMap<>(req.labels());
    TenantRow row =
        new TenantRow(
            UUID.randomUUID(), orgId, req.name(), nz(req.displayName()), labels, clock.instant());
    try {
      tenants.insert(row);
    } catch (DuplicateKeyException e) {
      throw ApiException.conflict("a tenant named '" + req.name() + "' already exists");
    }
    audit.record(
        orgId,
        caller.actor(),
        "tenant.created",
        "tenant",
        row.id().toString(),
        Map.of("name", row.name(), "displayName", row.displayName(), "labels", labels));
    return tenant(orgId, req.name());
  }

  @Transactional
  public TenantRow updateTenant(
      HubPrincipal caller, String name, ResourceRequests.TenantUpdate req) {
    TenantRow t = tenant(caller.orgId(), name);
    String displayName = req.displayName() != null ? req.displayName() : t.displayName();
    Map<String, String> labels = req.labels() != null ? new TreeMap<>(req.labels()) : t.labels();
    tenants.update(caller.orgId(), t.id(), displayName, labels);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("name", name);
    if (req.displayName() != null) {
      d.put("displayName", Map.of("from", t.displayName(), "to", displayName));
    }
    if (req.labels() != null) {
      d.put("labels", Map.of("from", t.labels(), "to", labels));
    }
    audit.record(caller.orgId(), caller.actor(), "tenant.updated", "tenant", t.id().toString(), d);
    return tenant(caller.orgId(), name);
  }

  @Transactional
  public void deleteTenant(HubPrincipal caller, String name) {
    TenantRow t = tenant(caller.orgId(), name);
    List<String> linked = tenants.projectsLinked(caller.orgId(), t.id());
    if (!linked.isEmpty()) {
      throw ApiException.conflict(
          "tenant '" + name + "' is linked to projects " + linked + "; unlink it first");
    }
    tenants.delete(caller.orgId(), t.id());
    audit.record(
        caller.orgId(),
        caller.actor(),
        "tenant.deleted",
        "tenant",
        t.id().toString(),
        Map.of("name", name));
  }

  // ---- manifest bundles and Kustomize bases ---------------------------------------------------

  @Transactional(readOnly = true)
  public List<SourceRow> sources(SourceKind kind, UUID orgId) {
    return sources.list(kind, orgId);
  }

  @Transactional(readOnly = true)
  public SourceRow source(SourceKind kind, UUID orgId, String name) {
    return sources
        .findByName(kind, orgId, name)
        .orElseThrow(() -> ApiException.notFound(kind.label() + " " + name));
  }

  @Transactional
  public SourceRow createSource(
      HubPrincipal caller, SourceKind kind, ResourceRequests.SourceWrite req) {
    UUID orgId = caller.orgId();
    if (sources.findByName(kind, orgId, req.name()).isPresent()) {
      throw ApiException.conflict(
          "a " + kind.label() + " named '" + req.name() + "' already exists");
    }
    Instant now = clock.instant();
    SourceRow row =
        new SourceRow(
            UUID.randomUUID(),
            orgId,
            req.name(),
            nz(req.description()),
            DeliveryJson.write(new TreeMap<>(req.files())),
            1,
            caller.id(),
            now,
            now);
    try {
      sources.insert(kind, row);
    } catch (DuplicateKeyException e) {
      throw ApiException.conflict(
          "a " + kind.label() + " named '" + req.name() + "' already exists");
    }
    audit.record(
        orgId,
        caller.actor(),
        auditPrefix(kind) + ".created",
        auditPrefix(kind),
        row.id().toString(),
        Map.of("name", row.name(), "files", new TreeMap<>(req.files()).keySet()));
    return source(kind, orgId, req.name());
  }

  /**
   * Replaces a bundle's or base's description and files. A change of the files moves its revision
   * on and is committed into every project that binds it.
   */
  public OrgApplied<SourceRow> updateSource(
      HubPrincipal caller, SourceKind kind, String name, ResourceRequests.SourceWrite req) {
    UUID orgId = caller.orgId();
    return changes.applyOrg(
        orgId,
        Author.of(caller),
        () -> {
          SourceRow before = source(kind, orgId, name);
          Map<String, String> files = new TreeMap<>(req.files());
          boolean filesChanged = !files.equals(before.fileMap());
          String description = req.description() != null ? req.description() : before.description();
          int revision = filesChanged ? before.revision() + 1 : before.revision();
          if (filesChanged || !description.equals(before.description())) {
            sources.update(
                kind,
                orgId,
                before.id(),
                description,
                DeliveryJson.write(files),
                revision,
                caller.id(),
                clock.instant());
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("name", name);
            d.put("revision", revision);
            d.put("files", files.keySet());
            audit.record(
                orgId,
                caller.actor(),
                auditPrefix(kind) + ".updated",
                auditPrefix(kind),
                before.id().toString(),
                d);
          }
          return new Step<>(
              source(kind, orgId, name),
              Message.of(
                  "Update " + kind.label() + " " + name + " to revision " + revision,
                  auditPrefix(kind) + ".updated"));
        });
  }

  @Transactional
  public void deleteSource(HubPrincipal caller, SourceKind kind, String name) {
    SourceRow s = source(kind, caller.orgId(), name);
    List<String> bound = sources.bindingsUsing(kind, caller.orgId(), s.id());
    if (!bound.isEmpty()) {
      throw ApiException.conflict(
          kind.label() + " '" + name + "' is bound by " + bound + "; remove those bindings first");
    }
    sources.delete(kind, caller.orgId(), s.id());
    audit.record(
        caller.orgId(),
        caller.actor(),
        auditPrefix(kind) + ".deleted",
        auditPrefix(kind),
        s.id().toString(),
        Map.of("name", name));
  }

  static String auditPrefix(SourceKind kind) {
    return kind == SourceKind.MANIFESTS ? "bundle" : "base";
  }

  // ---- org variables ---------------------------------------------------------------------------

  @Transactional(readOnly = true)
  public List<VariableRow> orgVariables(UUID orgId) {
    return variables.listOrg(orgId);
  }

  public OrgApplied<VariableRow> setOrgVariable(HubPrincipal caller, String key, String value) {
    UUID orgId = caller.orgId();
    return changes.applyOrg(
        orgId,
        Author.of(caller),
        () -> {
          int written =
              variables.upsert(
                  UUID.randomUUID(),
                  orgId,
                  "org",
                  null,
                  null,
                  null,
                  null,
                  key,
                  value,
                  caller.id(),
                  clock.instant());
          if (written > 0) {
            audit.record(
                orgId,
                caller.actor(),
                "variable.set",
                "variable",
                "org:" + key,
                Map.of("scope", "org", "key", key));
          }
          VariableRow row =
              variables.listOrg(orgId).stream()
                  .filter(v -> v.key().equals(key))
                  .findFirst()
                  .orElseThrow();
          return new Step<>(row, Message.of("Set organization variable " + key, "variable.set"));
        });
  }

  public OrgApplied<Void> deleteOrgVariable(HubPrincipal caller, String key) {
    UUID orgId = caller.orgId();
    return changes.applyOrg(
        orgId,
        Author.of(caller),
        () -> {
          if (variables.delete(orgId, "org", null, null, null, null, key) == 0) {
            throw ApiException.notFound("organization variable " + key);
          }
          audit.record(
              orgId,
              caller.actor(),
              "variable.deleted",
              "variable",
              "org:" + key,
              Map.of("scope", "org", "key", key));
          return new Step<>(
              null, Message.of("Remove organization variable " + key, "variable.removed"));
        });
  }

  private static String nz(String s) {
    return s == null ? "" : s;
  }
}
