package dev.gitopshq.activities.render;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.gitopshq.activities.delivery.ProjectSnapshot;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Binding;
import dev.gitopshq.activities.delivery.ProjectSnapshot.ClusterTarget;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Environment;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Overlay;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Target;
import dev.gitopshq.activities.delivery.ProjectSnapshot.TenantValues;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Variable;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Workload;
import dev.gitopshq.activities.git.RepoPaths;
import dev.gitopshq.agent.v1.TenantFence;
import dev.gitopshq.agent.v1.TenantFences;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Plans a {@link ProjectSnapshot} into the {@link Unit}s the delivery generator renders: pure and
 * deterministic (the same snapshot always gives the same list, sorted by path).
 *
 * <h2>Rules</h2>
 *
 * <table>
 *   <caption>What is rendered where</caption>
 *   <tr><th>source</th><th>one unit per</th><th>directory</th><th>content</th></tr>
 *   <tr><td>workload (Helm chart)</td>
 *       <td>environment (in the organization's order) x cluster of that environment x tenant of
 *           the project x workload</td>
 *       <td>{@code rendered/<env>/<cluster>/<tenant>/<workload>}</td>
 *       <td>the chart rendered with release name = workload name, namespace from the pattern,
 *           and the merged values below</td></tr>
 *   <tr><td>manifest binding (kind {@code manifests})</td>
 *       <td>target (tenant, environment) x cluster of that environment</td>
 *       <td>{@code rendered/<env>/<cluster>/<tenant>/<binding>}</td>
 *       <td>the bundle's objects with the overlays applied, one file per object</td></tr>
 *   <tr><td>Kustomize binding (kind {@code kustomize})</td>
 *       <td>target (tenant, environment) x cluster of that environment</td>
 *       <td>{@code rendered/<env>/<cluster>/<tenant>/<binding>}</td>
 *       <td>a kustomization.yaml: the namespace, the base {@code ../../../_bases/<base>} and the
 *           overlays as patches</td></tr>
 *   <tr><td>Kustomize base</td>
 *       <td>environment x base used by a Kustomize unit of that environment</td>
 *       <td>{@code rendered/<env>/_bases/<base>}</td>
 *       <td>the base's files as they are (no variables: one copy serves every tenant)</td></tr>
 * </table>
 *
 * <table>
 *   <caption>How inputs combine (later wins)</caption>
 *   <tr><th>what</th><th>precedence, lowest first</th></tr>
 *   <tr><td>HQ variables</td>
 *       <td>org &lt; project &lt; environment &lt; tenant &lt; service (the workload or binding
 *           name)</td></tr>
 *   <tr><td>Helm values</td>
 *       <td>the chart's values.yaml &lt; workload values &lt; tenant values for (workload, tenant,
 *           environment) &lt; the cluster's overrides; merged like Helm merges values files
 *           ({@link Values#deepMerge}): maps merge, lists and scalars replace, {@code null}
 *           removes the key (also the chart's default)</td></tr>
 *   <tr><td>variables in values</td>
 *       <td>{@code ${NAME}} in any string value of the merged values is replaced by the variable;
 *           {@code $${NAME}} is a literal {@code ${NAME}}; keys are never touched</td></tr>
 *   <tr><td>variables in bindings</td>
 *       <td>the same substitution in the string values of a manifest bundle's objects and in the
 *           overlays of manifest and Kustomize bindings</td></tr>
 *   <tr><td>namespace</td>
 *       <td>the environment's pattern with {@code {{ .tenant }}}, {@code {{ .environment }}},
 *           {@code {{ .project }}} and {@code {{ .cluster }}}; the result must be an RFC 1123
 *           label of at most 63 characters</td></tr>
 * </table>
 *
 * <p>Nothing is rendered for an environment without clusters or a project without tenants.
 *
 * <p>Planning fails with a {@link PlanException} saying what to fix when: a namespace pattern uses
 * other template text or gives an invalid namespace; a value refers to a variable nobody defines;
 * two units would put the same release or binding into the same namespace of the same cluster (a
 * pattern without {@code {{ .tenant }}} and several tenants); two units would share a directory (a
 * workload and a binding with the same name); a binding targets a tenant or environment the project
 * does not have; a bundle file is not YAML; a base has no kustomization.yaml; a file path of a
 * bundle or base is unsafe ({@link RepoPaths}); the project's fence refuses a namespace a pattern
 * gives ({@link TenantFences#namespaceRefusal}).
 *
 * <p>Every unit carries the project's fence (so a fence change changes every fingerprint and the
 * renderer checks every object against it) and the kind scopes its workload or binding declares. An
 * environment with {@code createNamespace} gets one more unit per cluster and namespace, {@code
 * rendered/<env>/<cluster>/<tenant>/_namespace}, holding the Namespace object (in the directory of
 * the first tenant, by name, that the namespace serves).
 */
public final class DeliveryPlanner {
  private static final List<String> SCOPES =
      List.of("org", "project", "environment", "tenant", "service");

  /** The service directory the Namespace object of a tenant's namespace is written into. */
  public static final String NAMESPACE_DIR = "_namespace";

  private static final Set<String> KUSTOMIZATION_FILES =
      Set.of("kustomization.yaml", "kustomization.yml", "Kustomization");

  private DeliveryPlanner() {}

  /**
   * The units of a project at one configuration revision, sorted by path.
   *
   * @throws PlanException when the configuration cannot be rendered; the message says why
   */
  public static List<Unit> plan(ProjectSnapshot snapshot) {
    return new Planning(snapshot).run();
  }

  /** The state of one planning run. */
  private static final class Planning {
    private final ProjectSnapshot snapshot;
    private final Map<String, TenantValues> tenantValues = new HashMap<>();
    private final Map<String, Unit> byPath = new HashMap<>();

    /** cluster / namespace / service: who renders it, to catch two units fighting over it. */
    private final Map<String, Unit> byRelease = new HashMap<>();

    private final List<Unit> units = new ArrayList<>();
    private final Map<String, Binding> baseSources = new HashMap<>();
    private final TenantFence fence;

    Planning(ProjectSnapshot snapshot) {
      this.snapshot = snapshot;
      this.fence = snapshot.fence().toProto();
      for (TenantValues v : snapshot.values()) {
        tenantValues.put(v.workload() + "/" + v.tenant() + "/" + v.environment(), v);
      }
    }

    List<Unit> run() {
      checkTargets();
      checkVariableScopes();
      if (snapshot.tenants().isEmpty()) {
        return List.of();
      }
      for (Environment env : snapshot.environments()) {
        if (env.clusters().isEmpty()) {
          continue;
        }
        NamespacePattern pattern = NamespacePattern.parse(env.namespacePattern(), env.name());
        Set<String> namespaces = new HashSet<>();
        for (ClusterTarget cluster : env.clusters()) {
          for (String tenant : snapshot.tenants().stream().sorted().toList()) {
            String namespace = namespace(pattern, env, cluster, tenant);
            if (env.createNamespace() && namespaces.add(cluster.name() + "/" + namespace)) {
              units.add(namespaceUnit(env, cluster, tenant, namespace));
            }
            for (Workload workload : snapshot.workloads()) {
              add(helm(env, cluster, tenant, namespace, workload), pattern);
            }
            for (Binding binding : snapshot.bindings()) {
              if (binding.targets().contains(new Target(tenant, env.name()))) {
                add(bound(env, cluster, tenant, namespace, binding), pattern);
              }
            }
          }
        }
      }
      List<Unit> sorted = new ArrayList<>(units);
      sorted.sort(Comparator.comparing(Unit::path));
      return List.copyOf(sorted);
    }

    private void checkTargets() {
      Set<String> environments = new HashSet<>();
      snapshot.environments().forEach(e -> environments.add(e.name()));
      Set<String> kinds = Set.of(Unit.MANIFESTS, Unit.KUSTOMIZE);
      for (Binding b : snapshot.bindings()) {
        if (!kinds.contains(b.kind())) {
          throw new PlanException(
              "binding "
                  + b.name()
                  + " has kind '"
                  + b.kind()
                  + "'; a binding is 'kustomize' or 'manifests'");
        }
        for (Target t : b.targets()) {
          if (!snapshot.tenants().contains(t.tenant())) {
            throw new PlanException(
                "binding "
                    + b.name()
                    + " targets tenant "
                    + t.tenant()
                    + ", which is not a tenant of project "
                    + snapshot.project());
          }
          if (!environments.contains(t.environment())) {
            throw new PlanException(
                "binding "
                    + b.name()
                    + " targets environment "
                    + t.environment()
                    + ", which is not an environment of project "
                    + snapshot.project());
          }
        }
      }
    }

    private void checkVariableScopes() {
      for (Variable v : snapshot.variables()) {
        if (!SCOPES.contains(v.scope())) {
          throw new PlanException(
              "HQ variable "
                  + v.key()
                  + " has scope '"
                  + v.scope()
                  + "'; the scopes are "
                  + SCOPES);
        }
      }
    }

    private String namespace(
        NamespacePattern pattern, Environment env, ClusterTarget cluster, String tenant) {
      String namespace =
          pattern.apply(
              Map.of(
                  "tenant", tenant,
                  "environment", env.name(),
                  "project", snapshot.project(),
                  "cluster", cluster.name()));
      String refusal = TenantFences.namespaceRefusal(fence, namespace);
      if (refusal != null) {
        throw new PlanException(
            "namespace pattern '"
                + pattern.pattern()
                + "' of environment "
                + env.name()
                + " gives "
                + namespace
                + " for tenant "
                + tenant
                + " on cluster "
                + cluster.name()
                + ": "
                + refusal);
      }
      return namespace;
    }

    private Unit namespaceUnit(
        Environment env, ClusterTarget cluster, String tenant, String namespace) {
      return new Unit(
          path(env.name(), cluster.name(), tenant, NAMESPACE_DIR),
          Unit.NAMESPACE,
          env.name(),
          cluster.name(),
          tenant,
          NAMESPACE_DIR,
          namespace,
          "",
          "",
          "",
          Map.of(),
          Map.of(),
          List.of(),
          "",
          Map.of(),
          snapshot.fence(),
          Map.of());
    }

    /** The variables one service of one tenant in one environment sees (later scopes win). */
    private Map<String, String> variables(String environment, String tenant, String service) {
      Map<String, String> merged = new TreeMap<>();
      for (String scope : SCOPES) {
        for (Variable v : snapshot.variables()) {
          if (!v.scope().equals(scope)) {
            continue;
          }
          boolean applies =
              switch (scope) {
                case "environment" -> environment.equals(v.environment());
                case "tenant" -> tenant.equals(v.tenant());
                case "service" -> service.equals(v.service());
                default -> true;
              };
          if (applies) {
            merged.put(v.key(), v.value());
          }
        }
      }
      return Collections.unmodifiableMap(merged);
    }

    private Unit helm(
        Environment env, ClusterTarget cluster, String tenant, String namespace, Workload w) {
      Map<String, String> variables = variables(env.name(), tenant, w.name());
      TenantValues tv = tenantValues.get(w.name() + "/" + tenant + "/" + env.name());
      Map<String, Object> merged =
          Values.deepMerge(w.values(), tv == null ? null : tv.values(), cluster.overrides());
      Map<String, Object> values =
          Values.substitute(
              merged,
              variables,
              "values of "
                  + w.name()
                  + " for tenant "
                  + tenant
                  + " in "
                  + env.name()
                  + " on cluster "
                  + cluster.name());
      return new Unit(
          path(env.name(), cluster.name(), tenant, w.name()),
          Unit.HELM,
          env.name(),
          cluster.name(),
          tenant,
          w.name(),
          namespace,
          w.chart(),
          w.chartVersion(),
          w.chartDigest(),
          Collections.unmodifiableMap(values),
          Map.of(),
          List.of(),
          "",
          variables,
          snapshot.fence(),
          w.kindScopes());
    }

    private Unit bound(
        Environment env, ClusterTarget cluster, String tenant, String namespace, Binding b) {
      Map<String, String> variables = variables(env.name(), tenant, b.name());
      String scope = " of binding " + b.name() + " for tenant " + tenant + " in " + env.name();
      List<Overlay> overlays = new ArrayList<>();
      for (int i = 0; i < b.overlays().size(); i++) {
        Overlay o = b.overlays().get(i);
        if (o.kind() == null || o.kind().isBlank()) {
          throw new PlanException("overlay " + (i + 1) + scope + " has no kind");
        }
        Map<String, Object> patch = o.patch() == null ? Map.of() : o.patch();
        overlays.add(
            new Overlay(
                o.kind(),
                o.name() == null ? "" : o.name(),
                Collections.unmodifiableMap(
                    Values.substitute(
                        patch, variables, "overlay " + (i + 1) + " (" + o.kind() + ")" + scope))));
      }
      String path = path(env.name(), cluster.name(), tenant, b.name());
      if (b.kind().equals(Unit.MANIFESTS)) {
        return new Unit(
            path,
            Unit.MANIFESTS,
            env.name(),
            cluster.name(),
            tenant,
            b.name(),
            namespace,
            "",
            "",
            "",
            Map.of(),
            manifestFiles(b, variables, scope),
            List.copyOf(overlays),
            "",
            variables,
            snapshot.fence(),
            b.kindScopes());
      }
      addBase(env, b);
      return new Unit(
          path,
          Unit.KUSTOMIZE,
          env.name(),
          cluster.name(),
          tenant,
          b.name(),
          namespace,
          "",
          "",
          "",
          Map.of(),
          Map.of(),
          List.copyOf(overlays),
          "../../../_bases/" + b.source(),
          variables,
          snapshot.fence(),
          b.kindScopes());
    }

    /** The bundle's files with variables substituted in their string values. */
    private Map<String, String> manifestFiles(
        Binding b, Map<String, String> variables, String scope) {
      Map<String, String> files = new TreeMap<>();
      for (Map.Entry<String, String> f : new TreeMap<>(b.files()).entrySet()) {
        checkPath(f.getKey(), "bundle " + b.source());
        List<Object> docs;
        try {
          docs = Yaml.readAll(f.getValue());
        } catch (JsonProcessingException e) {
          throw new PlanException(
              "file "
                  + f.getKey()
                  + " of bundle "
                  + b.source()
                  + " is not valid YAML: "
                  + e.getOriginalMessage(),
              e);
        }
        List<Object> substituted = new ArrayList<>();
        for (Object doc : docs) {
          substituted.add(
              Values.substitute(
                  doc, variables, "file " + f.getKey() + " of bundle " + b.source() + scope));
        }
        files.put(f.getKey(), Yaml.writeAll(substituted));
      }
      return Collections.unmodifiableMap(files);
    }

    private void addBase(Environment env, Binding b) {
      String path = "rendered/" + env.name() + "/_bases/" + b.source();
      if (RepoPaths.problem(path) != null || path.split("/").length != 4) {
        throw new PlanException(
            "the name of Kustomize base " + b.source() + " does not make a safe path: " + path);
      }
      Binding seen = baseSources.putIfAbsent(path, b);
      if (seen != null) {
        if (!seen.files().equals(b.files())) {
          throw new PlanException(
              "bindings "
                  + seen.name()
                  + " and "
                  + b.name()
                  + " use different contents of base "
                  + b.source()
                  + " (revisions "
                  + seen.sourceRevision()
                  + " and "
                  + b.sourceRevision()
                  + ")");
        }
        return;
      }
      if (b.files().keySet().stream().noneMatch(KUSTOMIZATION_FILES::contains)) {
        throw new PlanException(
            "Kustomize base "
                + b.source()
                + " (binding "
                + b.name()
                + ") has no kustomization.yaml at its top");
      }
      Map<String, String> files = new TreeMap<>();
      b.files()
          .forEach(
              (name, text) -> {
                checkPath(name, "Kustomize base " + b.source());
                files.put(name, text);
              });
      Unit base =
          new Unit(
              path,
              Unit.KUSTOMIZE_BASE,
              env.name(),
              "",
              "",
              "",
              "",
              "",
              "",
              "",
              Map.of(),
              Collections.unmodifiableMap(files),
              List.of(),
              "",
              Map.of(),
              snapshot.fence(),
              Map.of());
      byPath.put(path, base);
      units.add(base);
    }

    private static void checkPath(String path, String owner) {
      String why = RepoPaths.problem(path);
      if (why != null) {
        throw new PlanException("file path '" + path + "' of " + owner + " " + why);
      }
    }

    private static String path(String env, String cluster, String tenant, String service) {
      // Names are RFC 1123 labels (checked by the API); this only keeps a bad row from escaping.
      String path = "rendered/" + env + "/" + cluster + "/" + tenant + "/" + service;
      String why = RepoPaths.problem(path);
      if (why != null || path.split("/").length != 5) {
        throw new PlanException(
            "names of environment, cluster, tenant and service do not make a safe path: " + path);
      }
      return path;
    }

    private void add(Unit unit, NamespacePattern pattern) {
      Unit samePath = byPath.putIfAbsent(unit.path(), unit);
      if (samePath != null) {
        throw new PlanException(
            describe(samePath)
                + " and "
                + describe(unit)
                + " would both render into "
                + unit.path()
                + ": give one of them another name");
      }
      String release = unit.cluster() + "/" + unit.namespace() + "/" + unit.service();
      Unit other = byRelease.putIfAbsent(release, unit);
      if (other != null) {
        StringBuilder b = new StringBuilder();
        b.append(describe(unit))
            .append(" would be rendered into namespace ")
            .append(unit.namespace())
            .append(" on cluster ")
            .append(unit.cluster())
            .append(" twice (tenant ")
            .append(other.tenant())
            .append(" in ")
            .append(other.environment())
            .append(" and tenant ")
            .append(unit.tenant())
            .append(" in ")
            .append(unit.environment())
            .append("): ");
        if (!other.tenant().equals(unit.tenant()) && !pattern.uses("tenant")) {
          b.append("put {{ .tenant }} in the namespace pattern '")
              .append(pattern.pattern())
              .append("' of environment ")
              .append(unit.environment())
              .append(" so that every tenant gets its own namespace");
        } else {
          b.append("put {{ .environment }} in the namespace patterns of ")
              .append(other.environment())
              .append(" and ")
              .append(unit.environment())
              .append(" so that the environments sharing this cluster get their own namespaces");
        }
        throw new PlanException(b.toString());
      }
      units.add(unit);
    }

    private static String describe(Unit u) {
      return switch (u.kind()) {
        case Unit.HELM -> "workload " + u.service();
        case Unit.MANIFESTS -> "manifest binding " + u.service();
        default -> "Kustomize binding " + u.service();
      };
    }
  }
}
