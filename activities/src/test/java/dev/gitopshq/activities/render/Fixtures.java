package dev.gitopshq.activities.render;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.delivery.ProjectSnapshot;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Binding;
import dev.gitopshq.activities.delivery.ProjectSnapshot.ClusterTarget;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Environment;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Overlay;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Target;
import dev.gitopshq.activities.delivery.ProjectSnapshot.TenantValues;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Variable;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Workload;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Builds project snapshots for tests, with every list mutable until {@link #build}. */
final class Fixtures {
  static final ObjectMapper JSON = new ObjectMapper();
  static final UUID ORG = UUID.fromString("00000000-0000-0000-0000-0000000000aa");
  static final UUID PROJECT = UUID.fromString("00000000-0000-0000-0000-0000000000bb");

  final List<Environment> environments = new ArrayList<>();
  final List<String> tenants = new ArrayList<>();
  final List<Workload> workloads = new ArrayList<>();
  final List<TenantValues> values = new ArrayList<>();
  final List<Variable> variables = new ArrayList<>();
  final List<Binding> bindings = new ArrayList<>();
  String project = "shop";
  ProjectSnapshot.Fence fence = ProjectSnapshot.Fence.DEFAULT;

  static Fixtures project() {
    return new Fixtures();
  }

  /** JSON text (single quotes allowed for readability) as a values tree. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> json(String text) {
    try {
      return JSON.readValue(text.replace('\'', '"'), LinkedHashMap.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ClusterTarget cluster(String name) {
    return new ClusterTarget(name, UUID.nameUUIDFromBytes(name.getBytes()), Map.of());
  }

  static ClusterTarget cluster(String name, String overridesJson) {
    return new ClusterTarget(name, UUID.nameUUIDFromBytes(name.getBytes()), json(overridesJson));
  }

  Fixtures environment(String name, String pattern, ClusterTarget... clusters) {
    environments.add(new Environment(name, environments.size(), pattern, List.of(clusters)));
    return this;
  }

  /** An environment whose delivery writes its Namespace objects. */
  Fixtures environmentWithNamespace(String name, String pattern, ClusterTarget... clusters) {
    environments.add(new Environment(name, environments.size(), pattern, List.of(clusters), true));
    return this;
  }

  Fixtures fence(List<String> namespaces, List<String> clusterScoped, List<String> denied) {
    fence = new ProjectSnapshot.Fence(namespaces, clusterScoped, denied);
    return this;
  }

  Fixtures tenants(String... names) {
    tenants.addAll(List.of(names));
    return this;
  }

  Fixtures workload(String name, String valuesJson) {
    return workload(name, valuesJson, "0".repeat(64));
  }

  Fixtures workload(String name, String valuesJson, String digest) {
    workloads.add(new Workload(name, "webapp", "1.2.0", digest, json(valuesJson), "image.tag"));
    return this;
  }

  Fixtures workload(String name, String digest, Map<String, String> kindScopes) {
    workloads.add(
        new Workload(name, "webapp", "1.2.0", digest, json("{}"), "image.tag", kindScopes));
    return this;
  }

  Fixtures bindingWithScopes(
      String name, Map<String, String> files, Map<String, String> kindScopes, Target... targets) {
    bindings.add(
        new Binding(
            name,
            "manifests",
            name + "-bundle",
            1,
            files,
            List.of(),
            List.of(targets),
            kindScopes));
    return this;
  }

  Fixtures values(String workload, String tenant, String environment, String valuesJson) {
    values.add(new TenantValues(workload, tenant, environment, json(valuesJson)));
    return this;
  }

  Fixtures variable(String scope, String target, String key, String value) {
    variables.add(
        new Variable(
            scope,
            scope.equals("environment") ? target : null,
            scope.equals("tenant") ? target : null,
            scope.equals("service") ? target : null,
            key,
            value));
    return this;
  }

  Fixtures binding(
      String name,
      String kind,
      String source,
      Map<String, String> files,
      List<Overlay> overlays,
      Target... targets) {
    bindings.add(new Binding(name, kind, source, 1, files, overlays, List.of(targets)));
    return this;
  }

  static Target target(String tenant, String environment) {
    return new Target(tenant, environment);
  }

  static Overlay overlay(String kind, String name, String patchJson) {
    return new Overlay(kind, name, json(patchJson));
  }

  ProjectSnapshot build() {
    return new ProjectSnapshot(
        ORG,
        PROJECT,
        project,
        7,
        environments,
        tenants,
        workloads,
        values,
        variables,
        bindings,
        fence);
  }

  List<Unit> plan() {
    return DeliveryPlanner.plan(build());
  }
}
