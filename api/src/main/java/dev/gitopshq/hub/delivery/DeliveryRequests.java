package dev.gitopshq.hub.delivery;

import dev.gitopshq.activities.delivery.SourceKind;
import dev.gitopshq.hub.web.Checks;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Request bodies of the object model's API; each validates itself and names every bad field. */
final class DeliveryRequests {
  private DeliveryRequests() {}

  /** {@code POST /environments}. */
  record EnvironmentCreate(String name, String description, Integer position) {
    void validate() {
      Checks c = new Checks();
      c.dnsLabel("name", name);
      c.text("description", description, 1024);
      if (position != null && position < 0) {
        c.fail("position", "must be 0 or more");
      }
      c.throwIfInvalid();
    }
  }

  /** {@code PATCH /environments/{name}}. */
  record EnvironmentUpdate(String description) {
    void validate() {
      Checks c = new Checks();
      if (description == null) {
        c.fail("description", "is required");
      }
      c.text("description", description, 1024);
      c.throwIfInvalid();
    }
  }

  /** {@code PUT /environments/order}: every environment's name, in the new order. */
  record EnvironmentOrder(List<String> order) {
    void validate(List<String> existing) {
      Checks c = new Checks();
      if (order == null) {
        c.fail("order", "is required");
      } else if (order.size() != existing.size()
          || new HashSet<>(order).size() != order.size()
          || !new HashSet<>(order).equals(new HashSet<>(existing))) {
        c.fail("order", "must name every environment exactly once: " + existing);
      }
      c.throwIfInvalid();
    }
  }

  /** {@code POST /tenants}. */
  record TenantCreate(String name, String displayName, Map<String, String> labels) {
    void validate() {
      Checks c = new Checks();
      c.dnsLabel("name", name);
      c.displayName("displayName", displayName, 128, false);
      c.labels("labels", labels);
      c.throwIfInvalid();
    }
  }

  /** {@code PATCH /tenants/{name}}: only what is present changes. */
  record TenantUpdate(String displayName, Map<String, String> labels) {
    void validate() {
      Checks c = new Checks();
      c.displayName("displayName", displayName, 128, false);
      c.labels("labels", labels);
      if (displayName == null && labels == null) {
        c.fail("body", "give displayName and/or labels");
      }
      c.throwIfInvalid();
    }
  }

  /** {@code POST} and {@code PUT /manifest-bundles} and {@code /kustomize-bases}. */
  record SourceWrite(String name, String description, Map<String, String> files) {
    void validate(SourceKind kind, String pathName) {
      Checks c = new Checks();
      if (pathName == null) {
        c.dnsLabel("name", name);
      } else if (name != null && !name.equals(pathName)) {
        c.fail("name", "must match the name in the path (renaming is not supported)");
      }
      c.text("description", description, 1024);
      DeliveryChecks.files(c, kind, files);
      c.throwIfInvalid();
    }
  }

  /** {@code PUT /variables/{key}}. */
  record VariableValue(String value) {
    void validate(String key) {
      Checks c = new Checks();
      DeliveryChecks.variableKey(c, "key", key);
      DeliveryChecks.variableValue(c, "value", value);
      c.throwIfInvalid();
    }
  }

  /** {@code POST /projects}. */
  record ProjectCreate(String name, String description) {
    void validate() {
      Checks c = new Checks();
      c.dnsLabel("name", name);
      c.text("description", description, 1024);
      c.throwIfInvalid();
    }
  }

  /** {@code PATCH /projects/{id}}. */
  record ProjectUpdate(String description) {
    void validate() {
      Checks c = new Checks();
      if (description == null) {
        c.fail("description", "is required");
      }
      c.text("description", description, 1024);
      c.throwIfInvalid();
    }
  }

  /** A cluster an environment of a project delivers to. */
  record ClusterRef(String cluster, Map<String, Object> overrides) {}

  /** {@code PUT /projects/{id}/environments/{env}}. */
  record ProjectEnvironmentPut(String namespacePattern, List<ClusterRef> clusters) {
    String pattern() {
      return namespacePattern == null ? DeliveryChecks.DEFAULT_NAMESPACE_PATTERN : namespacePattern;
    }

    void validate() {
      Checks c = new Checks();
      String why = DeliveryChecks.namespacePatternProblem(pattern());
      if (why != null) {
        c.fail("namespacePattern", why);
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
        }
      }
      c.throwIfInvalid();
    }
  }

  /** {@code POST /projects/{id}/workloads} and {@code PUT .../workloads/{name}}. */
  record WorkloadWrite(
      String name, String chart, String version, Map<String, Object> values, String imageTagPath) {
    String tagPath() {
      return imageTagPath == null ? DeliveryChecks.DEFAULT_IMAGE_TAG_PATH : imageTagPath;
    }

    void validate(String pathName) {
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
      c.throwIfInvalid();
    }
  }

  /** {@code PUT /projects/{id}/values/{workload}/{tenant}/{environment}}. */
  record ValuesPut(Map<String, Object> values) {
    void validate() {
      Checks c = new Checks();
      if (values == null) {
        c.fail("values", "is required (an object)");
      }
      DeliveryChecks.values(c, "values", values);
      c.throwIfInvalid();
    }
  }

  /** {@code PUT /projects/{id}/variables}. */
  record ProjectVariablePut(
      String scope, String environment, String tenant, String service, String key, String value) {
    void validate() {
      Checks c = new Checks();
      scopeFields(c, scope, environment, tenant, service);
      DeliveryChecks.variableKey(c, "key", key);
      DeliveryChecks.variableValue(c, "value", value);
      c.throwIfInvalid();
    }
  }

  /** The fields a project variable's scope needs: exactly those, and no others. */
  static void scopeFields(
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
  record TargetRef(String tenant, String environment) {}

  /** A JSON merge patch for a binding's resources of a kind (and name). */
  record OverlayRef(String kind, String name, Map<String, Object> patch) {}

  /** {@code POST /projects/{id}/bindings} and {@code PUT .../bindings/{name}}. */
  record BindingWrite(
      String name, String kind, String source, List<TargetRef> targets, List<OverlayRef> overlays) {
    void validate(String pathName) {
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
          DeliveryChecks.values(c, f + ".patch", o.patch());
        }
      }
      c.throwIfInvalid();
    }
  }
}
