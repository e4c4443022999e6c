package dev.gitopshq.testkube;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIGroupBuilder;
import io.fabric8.kubernetes.api.model.APIGroupListBuilder;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.APIVersionsBuilder;
import io.fabric8.kubernetes.api.model.GroupVersionForDiscovery;
import io.fabric8.kubernetes.api.model.RootPathsBuilder;
import io.fabric8.kubernetes.api.model.ServerAddressByClientCIDR;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionNames;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Builds the legacy discovery documents: {@code /api}, {@code /api/v1}, {@code /apis}, {@code
 * /apis/<group>} and {@code /apis/<group>/<version>}.
 *
 * <p>Built-in groups come from {@link BuiltInApis}; custom resources from the CRDs currently
 * stored, so a CRD created through the API is discoverable at once, as on a real API server.
 * Aggregated discovery is deliberately not offered: the documents are served as plain {@code
 * application/json}, which makes client-go fall back to these legacy documents.
 */
final class Discovery {

  private final Supplier<List<CustomResourceDefinition>> crds;

  Discovery(Supplier<List<CustomResourceDefinition>> crds) {
    this.crds = crds;
  }

  /**
   * The discovery document for a path, or empty if the path is not a discovery path. A group or
   * group-version that does not exist yields {@code Optional.of(NOT_FOUND)}.
   */
  Optional<Object> document(String path, String serverAddress) {
    return switch (path) {
      case "/" -> Optional.of(new RootPathsBuilder().withPaths(rootPaths()).build());
      case "/api" ->
          Optional.of(
              new APIVersionsBuilder()
                  .withApiVersion("v1")
                  .withKind("APIVersions")
                  .withVersions("v1")
                  .withServerAddressByClientCIDRs(
                      new ServerAddressByClientCIDR("0.0.0.0/0", serverAddress))
                  .build());
      case "/api/v1" -> Optional.of(resourceList("v1", BuiltInApis.RESOURCES.get("v1")));
      case "/apis" ->
          Optional.of(
              new APIGroupListBuilder()
                  .withApiVersion("v1")
                  .withKind("APIGroupList")
                  .withGroups(groups())
                  .build());
      default -> group(path);
    };
  }

  /** Marks a discovery path that names a group or version the server does not have. */
  static final Object NOT_FOUND = new Object();

  private Optional<Object> group(String path) {
    if (!path.startsWith("/apis/")) {
      return Optional.empty();
    }
    String[] segments = path.substring("/apis/".length()).split("/");
    if (segments.length == 1) {
      return Optional.of(
          groups().stream()
              .filter(group -> group.getName().equals(segments[0]))
              .findFirst()
              .<Object>map(
                  group -> {
                    group.setApiVersion("v1");
                    group.setKind("APIGroup");
                    return group;
                  })
              .orElse(NOT_FOUND));
    }
    if (segments.length == 2) {
      String groupVersion = segments[0] + "/" + segments[1];
      List<APIResource> resources = allResources().get(groupVersion);
      return Optional.of(resources == null ? NOT_FOUND : resourceList(groupVersion, resources));
    }
    return Optional.empty();
  }

  /**
   * The OpenAPI v3 index, or the document of one built-in group-version, or empty.
   *
   * <p>kubectl reads these only to learn that the server validates fields itself (the {@code
   * fieldValidation} parameter on PATCH); without them it insists on downloading a full schema to
   * validate on the client, which TestKube cannot provide. The documents therefore describe the
   * PATCH operation of every built-in resource and nothing more. Custom resources are left out on
   * purpose: kubectl then checks the Namespace document, as it does for CRDs.
   */
  Optional<Map<String, Object>> openApi(String path) {
    if (path.equals("/openapi/v3")) {
      Map<String, Object> paths = new LinkedHashMap<>();
      for (String groupVersion : BuiltInApis.RESOURCES.keySet()) {
        String key = prefix(groupVersion);
        paths.put(key, Map.of("serverRelativeURL", "/openapi/v3/" + key + "?hash=testkube"));
      }
      return Optional.of(Map.of("paths", paths));
    }
    for (Map.Entry<String, List<APIResource>> entry : BuiltInApis.RESOURCES.entrySet()) {
      String prefix = prefix(entry.getKey());
      if (!path.equals("/openapi/v3/" + prefix)) {
        continue;
      }
      String[] groupVersion = BuiltInApis.split(entry.getKey());
      Map<String, Object> paths = new LinkedHashMap<>();
      for (APIResource resource : entry.getValue()) {
        if (resource.getName().contains("/")) {
          continue;
        }
        String item =
            Boolean.TRUE.equals(resource.getNamespaced())
                ? "/" + prefix + "/namespaces/{namespace}/" + resource.getName() + "/{name}"
                : "/" + prefix + "/" + resource.getName() + "/{name}";
        Map<String, Object> patch = new LinkedHashMap<>();
        patch.put("operationId", "patch" + resource.getKind());
        patch.put(
            "x-kubernetes-group-version-kind",
            Map.of(
                "group", groupVersion[0], "version", groupVersion[1], "kind", resource.getKind()));
        patch.put(
            "parameters",
            List.of(
                Map.of(
                    "name", "fieldValidation", "in", "query", "schema", Map.of("type", "string")),
                Map.of("name", "fieldManager", "in", "query", "schema", Map.of("type", "string"))));
        patch.put("responses", Map.of("200", Map.of("description", "OK")));
        paths.put(item, Map.of("patch", patch));
      }
      Map<String, Object> document = new LinkedHashMap<>();
      document.put("openapi", "3.0.0");
      document.put("info", Map.of("title", "Kubernetes", "version", "v1.32.0-testkube"));
      document.put("paths", paths);
      document.put("components", Map.of("schemas", Map.of()));
      return Optional.of(document);
    }
    return Optional.empty();
  }

  private static String prefix(String groupVersion) {
    return groupVersion.equals("v1") ? "api/v1" : "apis/" + groupVersion;
  }

  private List<String> rootPaths() {
    List<String> paths = new ArrayList<>(List.of("/api", "/api/v1", "/apis"));
    for (String groupVersion : allResources().keySet()) {
      if (!groupVersion.equals("v1")) {
        paths.add("/apis/" + BuiltInApis.split(groupVersion)[0]);
        paths.add("/apis/" + groupVersion);
      }
    }
    paths.addAll(List.of("/healthz", "/livez", "/openapi/v3", "/readyz", "/version"));
    return paths.stream().distinct().toList();
  }

  /** Every advertised group-version: built-in ones first, then custom resources by name. */
  private Map<String, List<APIResource>> allResources() {
    Map<String, List<APIResource>> all = new LinkedHashMap<>(BuiltInApis.RESOURCES);
    all.putAll(customResources());
    return all;
  }

  private List<APIGroup> groups() {
    Map<String, List<String>> versionsByGroup = new LinkedHashMap<>();
    for (String groupVersion : allResources().keySet()) {
      String[] parts = BuiltInApis.split(groupVersion);
      if (!parts[0].isEmpty()) {
        versionsByGroup.computeIfAbsent(parts[0], g -> new ArrayList<>()).add(parts[1]);
      }
    }
    List<APIGroup> groups = new ArrayList<>();
    versionsByGroup.forEach(
        (group, versions) -> {
          List<GroupVersionForDiscovery> discovered =
              versions.stream().map(v -> new GroupVersionForDiscovery(group + "/" + v, v)).toList();
          groups.add(
              new APIGroupBuilder()
                  .withName(group)
                  .withVersions(discovered)
                  .withPreferredVersion(discovered.get(0))
                  .build());
        });
    return groups;
  }

  private Map<String, List<APIResource>> customResources() {
    Map<String, List<APIResource>> byGroupVersion = new TreeMap<>();
    for (CustomResourceDefinition crd : crds.get()) {
      if (crd.getSpec() == null || crd.getSpec().getNames() == null) {
        continue;
      }
      CustomResourceDefinitionNames names = crd.getSpec().getNames();
      boolean namespaced = "Namespaced".equals(crd.getSpec().getScope());
      for (CustomResourceDefinitionVersion version : crd.getSpec().getVersions()) {
        if (!Boolean.TRUE.equals(version.getServed())) {
          continue;
        }
        List<APIResource> resources =
            byGroupVersion.computeIfAbsent(
                crd.getSpec().getGroup() + "/" + version.getName(), gv -> new ArrayList<>());
        resources.add(
            new APIResourceBuilder()
                .withName(names.getPlural())
                .withSingularName(names.getSingular() == null ? "" : names.getSingular())
                .withKind(names.getKind())
                .withNamespaced(namespaced)
                .withVerbs(BuiltInApis.ALL_VERBS)
                .withShortNames(names.getShortNames())
                .withCategories(names.getCategories())
                .build());
        if (version.getSubresources() != null && version.getSubresources().getStatus() != null) {
          resources.add(
              new APIResourceBuilder()
                  .withName(names.getPlural() + "/status")
                  .withSingularName("")
                  .withKind(names.getKind())
                  .withNamespaced(namespaced)
                  .withVerbs("get", "patch", "update")
                  .build());
        }
      }
    }
    return byGroupVersion;
  }

  private static Object resourceList(String groupVersion, List<APIResource> resources) {
    return new APIResourceListBuilder()
        .withApiVersion("v1")
        .withKind("APIResourceList")
        .withGroupVersion(groupVersion)
        .withResources(resources)
        .build();
  }
}
