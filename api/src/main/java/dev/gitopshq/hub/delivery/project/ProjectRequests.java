package dev.gitopshq.hub.delivery.project;

import dev.gitopshq.activities.cluster.LabelSelector;
import dev.gitopshq.activities.delivery.ProjectSnapshot;
import dev.gitopshq.activities.delivery.SourceKind;
import dev.gitopshq.activities.render.UnitObjects;
import dev.gitopshq.agent.v1.KindScopes;
import dev.gitopshq.agent.v1.TenantFences;
import dev.gitopshq.hub.delivery.DeliveryChecks;
import dev.gitopshq.hub.web.Checks;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Request bodies of the project API; each validates itself and names every bad field. */
public final class ProjectRequests {
  private ProjectRequests() {}

  /** How a cluster of a project environment is delivered to; the first is the default. */
  public static final List<String> DELIVERY_MODES = ProjectSnapshot.ClusterTarget.MODES;

  /** {@code POST /projects}. */
  public record ProjectCreate(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String name, String description) {
    public void validate() {
      Checks c = new Checks();
      c.dnsLabel("name", name);
      c.text("description", description, 1024);
      c.throwIfInvalid();
    }
  }

  /** {@code PATCH /projects/{id}}. */
  public record ProjectUpdate(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String description) {
    public void validate() {
      Checks c = new Checks();
      if (description == null) {
        c.fail("description", "is required");
      }
      c.text("description", description, 1024);
      c.throwIfInvalid();
    }
  }

  /**
   * A cluster an environment of a project delivers to.
   *
   * @param deliveryMode argocd, flux or direct; null: the environment's {@code deliveryMode}
   */
  public record ClusterRef(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String cluster,
      Map<String, Object> overrides,
      String deliveryMode) {
    public ClusterRef(String cluster, Map<String, Object> overrides) {
      this(cluster, overrides, null);
    }
  }

  /**
   * {@code PUT /projects/{id}/environments/{env}}.
   *
   * @param deliveryMode the delivery mode of every cluster that names none and of every cluster the
   *     selector binds (default argocd)
   * @param clusterSelector a Kubernetes label selector: the organization's registered clusters it
   *     matches are bound too (with no overrides); absent (null) binds by name only, {@code {}}
   *     binds every registered cluster
   */
  public record ProjectEnvironmentPut(
      String namespacePattern,
      List<ClusterRef> clusters,
      String deliveryMode,
      Boolean createNamespace,
      LabelSelector clusterSelector) {
    public ProjectEnvironmentPut(String namespacePattern, List<ClusterRef> clusters) {
      this(namespacePattern, clusters, null, null, null);
    }

    public ProjectEnvironmentPut(
        String namespacePattern, List<ClusterRef> clusters, String deliveryMode) {
      this(namespacePattern, clusters, deliveryMode, null, null);
    }

    /** The delivery mode of the clusters only the selector binds. */
    public String selectorMode() {
      return deliveryMode != null ? deliveryMode : DELIVERY_MODES.get(0);
    }

    /** Whether delivery writes the Namespace objects (default false). */
    public boolean createsNamespace() {
      return Boolean.TRUE.equals(createNamespace);
    }

    /** The one namespace a pattern without placeholders gives, or null when it has placeholders. */
    public String literalNamespace() {
      return pattern().contains("{{") ? null : pattern();
    }

    public String pattern() {
      return namespacePattern == null ? DeliveryChecks.DEFAULT_NAMESPACE_PATTERN : namespacePattern;
    }

    /** The delivery mode of one cluster: its own, else the environment's, else argocd. */
    public String modeOf(ClusterRef r) {
      if (r.deliveryMode() != null) {
        return r.deliveryMode();
      }
      return deliveryMode != null ? deliveryMode : DELIVERY_MODES.get(0);
    }

    public void validate() {
      Checks c = new Checks();
      String why = DeliveryChecks.namespacePatternProblem(pattern());
      if (why != null) {
        c.fail("namespacePattern", why);
      }
      if (deliveryMode != null && !DELIVERY_MODES.contains(deliveryMode)) {
        c.fail("deliveryMode", "must be one of " + String.join(", ", DELIVERY_MODES));
      }
      if (clusters != null) {
        if (clusters.size() > DeliveryChecks.MAX_CLUSTERS) {
          c.fail("clusters", "must list at most " + DeliveryChecks.MAX_CLUSTERS + " clusters");
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < clusters.size(); i++) {
          ClusterRef r = clusters.get(i);
          String f = "clusters[" + i + "]";
          if (r == null) {
            c.fail(f, "must be an object");
            continue;
          }
          c.dnsLabel(f + ".cluster", r.cluster());
          if (r.cluster() != null && !seen.add(r.cluster())) {
            c.fail(f + ".cluster", "is listed twice");
          }
          DeliveryChecks.values(c, f + ".overrides", r.overrides());
          if (r.deliveryMode() != null && !DELIVERY_MODES.contains(r.deliveryMode())) {
            c.fail(f + ".deliveryMode", "must be one of " + String.join(", ", DELIVERY_MODES));
          }
        }
      }
      c.selector("clusterSelector", clusterSelector);
      c.throwIfInvalid();
    }
  }

  /** The most kinds one workload or binding may declare the scope of. */
  public static final int MAX_KIND_SCOPES = 100;

  /**
   * The scope declarations of a workload or binding: {@code group/Kind} (a kind of an API group the
   * hub does not know) to {@code Namespaced} or {@code Cluster}.
   */
  static void checkKindScopes(Checks c, Map<String, String> scopes) {
    if (scopes == null) {
      return;
    }
    if (scopes.size() > MAX_KIND_SCOPES) {
      c.fail("kindScopes", "must declare at most " + MAX_KIND_SCOPES + " kinds");
      return;
    }
    for (Map.Entry<String, String> e : scopes.entrySet()) {
      String f = "kindScopes." + e.getKey();
      String key = e.getKey();
      int slash = key.indexOf('/');
      if (slash <= 0 || key.endsWith("/*") || TenantFences.kindEntryProblem(key) != null) {
        c.fail(f, "must be group/Kind, e.g. monitoring.coreos.com/ServiceMonitor");
      } else if (KindScopes.namespaced(key.substring(0, slash) + "/v1", key.substring(slash + 1))
          .isPresent()) {
        c.fail(f, "is a built-in kind; its scope is known and cannot be declared");
      }
      if (e.getValue() == null || !ProjectSnapshot.KIND_SCOPES.contains(e.getValue())) {
        c.fail(f, "must be Namespaced or Cluster");
      }
    }
  }

  /** {@code POST /projects/{id}/workloads} and {@code PUT .../workloads/{name}}. */
  public record WorkloadWrite(
      String name,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String chart,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String version,
      Map<String, Object> values,
      String imageTagPath,
      Map<String, String> kindScopes) {
    public WorkloadWrite(
        String name,
        String chart,
        String version,
        Map<String, Object> values,
        String imageTagPath) {
      this(name, chart, version, values, imageTagPath, null);
    }

    String tagPath() {
      return imageTagPath == null ? DeliveryChecks.DEFAULT_IMAGE_TAG_PATH : imageTagPath;
    }

    public void validate(String pathName) {
      Checks c = new Checks();
      if (pathName == null) {
        c.dnsLabel("name", name);
      } else if (name != null && !name.equals(pathName)) {
        c.fail("name", "must match the name in the path (renaming is not supported)");
      }
      c.requiredText("chart", chart, 253);
      c.requiredText("version", version, 128);
      DeliveryChecks.values(c, "values", values);
      if (tagPath().length() > 253 || !DeliveryChecks.VALUES_PATH.matcher(tagPath()).matches()) {
        c.fail("imageTagPath", "must be a dotted values path such as image.tag");
      }
      checkKindScopes(c, kindScopes);
      c.throwIfInvalid();
    }
  }

  /** {@code PUT /projects/{id}/values/{workload}/{tenant}/{environment}}. */
  public record ValuesPut(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) Map<String, Object> values) {
    public void validate() {
      Checks c = new Checks();
      if (values == null) {
        c.fail("values", "is required (an object)");
      }
      DeliveryChecks.values(c, "values", values);
      c.throwIfInvalid();
    }
  }

  /** {@code PUT /projects/{id}/variables}. */
  public record ProjectVariablePut(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String scope,
      String environment,
      String tenant,
      String service,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String key,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String value) {
    public void validate() {
      Checks c = new Checks();
      scopeFields(c, scope, environment, tenant, service);
      DeliveryChecks.variableKey(c, "key", key);
      DeliveryChecks.variableValue(c, "value", value);
      c.throwIfInvalid();
    }
  }

  /** The fields a project variable's scope needs: exactly those, and no others. */
  public static void scopeFields(
      Checks c, String scope, String environment, String tenant, String service) {
    if (scope == null || !List.of("project", "environment", "tenant", "service").contains(scope)) {
      c.fail("scope", "must be project, environment, tenant or service");
      return;
    }
    String[][] fields = {{"environment", environment}, {"tenant", tenant}, {"service", service}};
    for (String[] f : fields) {
      if (f[0].equals(scope)) {
        c.dnsLabel(f[0], f[1]);
      } else if (f[1] != null) {
        c.fail(f[0], "must not be given for scope " + scope);
      }
    }
  }

  /** A tenant-environment pair of a binding. */
  public record TargetRef(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String tenant,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String environment) {}

  /** A JSON merge patch for a binding's resources of a kind (and name). */
  public record OverlayRef(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String kind,
      String name,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) Map<String, Object> patch) {}

  /** {@code POST /projects/{id}/bindings} and {@code PUT .../bindings/{name}}. */
  public record BindingWrite(
      String name,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String kind,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String source,
      List<TargetRef> targets,
      List<OverlayRef> overlays,
      Map<String, String> kindScopes) {
    public BindingWrite(
        String name,
        String kind,
        String source,
        List<TargetRef> targets,
        List<OverlayRef> overlays) {
      this(name, kind, source, targets, overlays, null);
    }

    public void validate(String pathName) {
      Checks c = new Checks();
      if (pathName == null) {
        c.dnsLabel("name", name);
      } else if (name != null && !name.equals(pathName)) {
        c.fail("name", "must match the name in the path (renaming is not supported)");
      }
      if (SourceKind.ofBindingKind(kind) == null) {
        c.fail("kind", "must be kustomize or manifests");
      }
      c.dnsLabel("source", source);
      if (targets != null) {
        if (targets.size() > DeliveryChecks.MAX_TARGETS) {
          c.fail("targets", "must list at most " + DeliveryChecks.MAX_TARGETS + " targets");
        }
        Set<TargetRef> seen = new HashSet<>();
        for (int i = 0; i < targets.size(); i++) {
          TargetRef t = targets.get(i);
          String f = "targets[" + i + "]";
          if (t == null) {
            c.fail(f, "must be an object");
            continue;
          }
          c.dnsLabel(f + ".tenant", t.tenant());
          c.dnsLabel(f + ".environment", t.environment());
          if (!seen.add(t)) {
            c.fail(f, "is listed twice");
          }
        }
      }
      if (overlays != null) {
        if (overlays.size() > DeliveryChecks.MAX_OVERLAYS) {
          c.fail("overlays", "must list at most " + DeliveryChecks.MAX_OVERLAYS + " overlays");
        }
        for (int i = 0; i < overlays.size(); i++) {
          OverlayRef o = overlays.get(i);
          String f = "overlays[" + i + "]";
          if (o == null) {
            c.fail(f, "must be an object");
            continue;
          }
          if (o.kind() == null || !DeliveryChecks.KIND.matcher(o.kind()).matches()) {
            c.fail(f + ".kind", "must be a Kubernetes kind such as Deployment");
          }
          if (o.name() != null
              && !o.name().isEmpty()
              && !DeliveryChecks.RESOURCE_NAME.matcher(o.name()).matches()) {
            c.fail(f + ".name", "must be a Kubernetes resource name");
          }
          if (o.patch() == null) {
            c.fail(f + ".patch", "is required (a JSON merge patch object)");
          }
          for (String fixed : UnitObjects.fixedFieldsTouched(o.patch())) {
            c.fail(
                f + ".patch." + fixed,
                "an overlay may not change an object's kind, apiVersion, name or namespace");
          }
          DeliveryChecks.values(c, f + ".patch", o.patch());
        }
      }
      checkKindScopes(c, kindScopes);
      c.throwIfInvalid();
    }
  }
}
