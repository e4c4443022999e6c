package dev.gitopshq.testkube;

import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The built-in API groups and resources TestKube advertises through discovery.
 *
 * <p>The Fabric8 CRUD dispatcher stores any object under any path, but clients such as {@code
 * kubectl} only call paths that discovery told them exist. This table is what a small real cluster
 * would advertise for the kinds GitOpsHQ reads and writes; custom resources are not listed here
 * because TestKube derives them from the stored CustomResourceDefinition objects.
 */
final class BuiltInApis {

  /** The verbs of an ordinary namespaced or cluster-scoped collection. */
  static final List<String> ALL_VERBS =
      List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

  private static final List<String> SUBRESOURCE_VERBS = List.of("get", "patch", "update");

  /** Group-version ("v1" for the core group) to its resources, in advertisement order. */
  static final Map<String, List<APIResource>> RESOURCES = build();

  private BuiltInApis() {}

  private static Map<String, List<APIResource>> build() {
    Map<String, List<APIResource>> apis = new LinkedHashMap<>();
    apis.put(
        "v1",
        List.of(
            resource("pods", "pod", "Pod", true, List.of("po"), List.of("all")),
            subresource("pods/status", "Pod", null, null),
            resource("services", "service", "Service", true, List.of("svc"), List.of("all")),
            resource("configmaps", "configmap", "ConfigMap", true, List.of("cm"), List.of()),
            resource("secrets", "secret", "Secret", true, List.of(), List.of()),
            new APIResourceBuilder()
                .withName("namespaces")
                .withSingularName("namespace")
                .withKind("Namespace")
                .withNamespaced(false)
                .withVerbs("create", "delete", "get", "list", "patch", "update", "watch")
                .withShortNames("ns")
                .build(),
            resource("events", "event", "Event", true, List.of("ev"), List.of()),
            resource(
                "serviceaccounts",
                "serviceaccount",
                "ServiceAccount",
                true,
                List.of("sa"),
                List.of()),
            resource(
                "persistentvolumeclaims",
                "persistentvolumeclaim",
                "PersistentVolumeClaim",
                true,
                List.of("pvc"),
                List.of())));
    apis.put(
        "apps/v1",
        List.of(
            resource(
                "deployments", "deployment", "Deployment", true, List.of("deploy"), List.of("all")),
            subresource("deployments/scale", "Scale", "autoscaling", "v1"),
            subresource("deployments/status", "Deployment", null, null),
            resource(
                "statefulsets", "statefulset", "StatefulSet", true, List.of("sts"), List.of("all")),
            subresource("statefulsets/scale", "Scale", "autoscaling", "v1"),
            resource("daemonsets", "daemonset", "DaemonSet", true, List.of("ds"), List.of("all")),
            resource(
                "replicasets", "replicaset", "ReplicaSet", true, List.of("rs"), List.of("all")),
            subresource("replicasets/scale", "Scale", "autoscaling", "v1")));
    apis.put(
        "batch/v1",
        List.of(
            resource("jobs", "job", "Job", true, List.of(), List.of("all")),
            resource("cronjobs", "cronjob", "CronJob", true, List.of("cj"), List.of("all"))));
    apis.put(
        "networking.k8s.io/v1",
        List.of(
            resource("ingresses", "ingress", "Ingress", true, List.of("ing"), List.of()),
            resource(
                "networkpolicies",
                "networkpolicy",
                "NetworkPolicy",
                true,
                List.of("netpol"),
                List.of()),
            resource(
                "ingressclasses", "ingressclass", "IngressClass", false, List.of(), List.of())));
    apis.put(
        "rbac.authorization.k8s.io/v1",
        List.of(
            resource("roles", "role", "Role", true, List.of(), List.of()),
            resource("rolebindings", "rolebinding", "RoleBinding", true, List.of(), List.of()),
            resource("clusterroles", "clusterrole", "ClusterRole", false, List.of(), List.of()),
            resource(
                "clusterrolebindings",
                "clusterrolebinding",
                "ClusterRoleBinding",
                false,
                List.of(),
                List.of())));
    apis.put(
        "apiextensions.k8s.io/v1",
        List.of(
            resource(
                "customresourcedefinitions",
                "customresourcedefinition",
                "CustomResourceDefinition",
                false,
                List.of("crd", "crds"),
                List.of("api-extensions")),
            subresource(
                "customresourcedefinitions/status", "CustomResourceDefinition", null, null)));
    return Collections.unmodifiableMap(apis);
  }

  private static APIResource resource(
      String plural,
      String singular,
      String kind,
      boolean namespaced,
      List<String> shortNames,
      List<String> categories) {
    APIResourceBuilder builder =
        new APIResourceBuilder()
            .withName(plural)
            .withSingularName(singular)
            .withKind(kind)
            .withNamespaced(namespaced)
            .withVerbs(ALL_VERBS);
    if (!shortNames.isEmpty()) {
      builder.withShortNames(shortNames);
    }
    if (!categories.isEmpty()) {
      builder.withCategories(categories);
    }
    return builder.build();
  }

  private static APIResource subresource(String name, String kind, String group, String version) {
    // Subresources share their parent's scope; every subresource listed here belongs to a
    // namespaced parent except the CRD status, which follows its cluster-scoped parent.
    boolean namespaced = !name.startsWith("customresourcedefinitions/");
    APIResourceBuilder builder =
        new APIResourceBuilder()
            .withName(name)
            .withSingularName("")
            .withKind(kind)
            .withNamespaced(namespaced)
            .withVerbs(SUBRESOURCE_VERBS);
    if (group != null) {
      builder.withGroup(group).withVersion(version);
    }
    return builder.build();
  }

  /** Splits "group/version" into its group ("" for the core group) and version. */
  static String[] split(String groupVersion) {
    int slash = groupVersion.indexOf('/');
    return slash < 0
        ? new String[] {"", groupVersion}
        : new String[] {groupVersion.substring(0, slash), groupVersion.substring(slash + 1)};
  }
}
