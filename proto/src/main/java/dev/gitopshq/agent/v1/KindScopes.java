package dev.gitopshq.agent.v1;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Whether a Kubernetes kind is namespaced, for the kinds every cluster serves (Kubernetes 1.33's
 * built-in API groups, and the volume snapshot kinds most distributions install). The hub decides
 * by this table which rendered objects get their binding's namespace; a kind it does not list is
 * known only from a CustomResourceDefinition the chart or bundle ships, or from what the binding
 * declares. The agent asks its cluster's discovery instead.
 */
public final class KindScopes {
  private static final Map<String, Boolean> NAMESPACED = new HashMap<>();

  static {
    namespacedKinds(
        "",
        "Pod",
        "Service",
        "ConfigMap",
        "Secret",
        "ServiceAccount",
        "PersistentVolumeClaim",
        "Endpoints",
        "Event",
        "LimitRange",
        "ResourceQuota",
        "ReplicationController",
        "PodTemplate");
    clusterKinds("", "Namespace", "Node", "PersistentVolume", "ComponentStatus");
    namespacedKinds(
        "apps", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ControllerRevision");
    namespacedKinds("batch", "Job", "CronJob");
    namespacedKinds("autoscaling", "HorizontalPodAutoscaler");
    namespacedKinds("policy", "PodDisruptionBudget");
    namespacedKinds("networking.k8s.io", "NetworkPolicy", "Ingress");
    clusterKinds("networking.k8s.io", "IngressClass", "IPAddress", "ServiceCIDR");
    namespacedKinds("rbac.authorization.k8s.io", "Role", "RoleBinding");
    clusterKinds("rbac.authorization.k8s.io", "ClusterRole", "ClusterRoleBinding");
    namespacedKinds("storage.k8s.io", "CSIStorageCapacity");
    clusterKinds(
        "storage.k8s.io",
        "StorageClass",
        "CSIDriver",
        "CSINode",
        "VolumeAttachment",
        "VolumeAttributesClass");
    clusterKinds("scheduling.k8s.io", "PriorityClass");
    clusterKinds("node.k8s.io", "RuntimeClass");
    clusterKinds(
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding");
    clusterKinds("apiextensions.k8s.io", "CustomResourceDefinition");
    clusterKinds("apiregistration.k8s.io", "APIService");
    namespacedKinds("coordination.k8s.io", "Lease");
    namespacedKinds("discovery.k8s.io", "EndpointSlice");
    namespacedKinds("events.k8s.io", "Event");
    clusterKinds("certificates.k8s.io", "CertificateSigningRequest", "ClusterTrustBundle");
    clusterKinds("flowcontrol.apiserver.k8s.io", "FlowSchema", "PriorityLevelConfiguration");
    namespacedKinds("resource.k8s.io", "ResourceClaim", "ResourceClaimTemplate");
    clusterKinds("resource.k8s.io", "DeviceClass", "ResourceSlice");
    namespacedKinds("snapshot.storage.k8s.io", "VolumeSnapshot");
    clusterKinds("snapshot.storage.k8s.io", "VolumeSnapshotClass", "VolumeSnapshotContent");
  }

  private KindScopes() {}

  // Named apart from the public query namespaced(apiVersion, kind): with one kind, a call of a
  // registration named namespaced(group, kind) would resolve to the query and register nothing.
  private static void namespacedKinds(String group, String... kinds) {
    for (String kind : kinds) {
      NAMESPACED.put(key(group, kind), true);
    }
  }

  private static void clusterKinds(String group, String... kinds) {
    for (String kind : kinds) {
      NAMESPACED.put(key(group, kind), false);
    }
  }

  private static String key(String group, String kind) {
    return group.toLowerCase(Locale.ROOT) + "/" + kind;
  }

  /**
   * Whether a built-in kind is namespaced: empty for a kind this table does not know (a custom
   * resource, or a typo).
   *
   * @param apiVersion {@code v1}, {@code apps/v1}, ... (only the group counts)
   */
  public static Optional<Boolean> namespaced(String apiVersion, String kind) {
    return Optional.ofNullable(NAMESPACED.get(key(group(apiVersion), kind)));
  }

  /**
   * The API group of an apiVersion: {@code ""} for {@code v1}, {@code apps} for {@code apps/v1}.
   */
  public static String group(String apiVersion) {
    if (apiVersion == null) {
      return "";
    }
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? "" : apiVersion.substring(0, slash);
  }
}
