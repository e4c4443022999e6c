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
    namespaced(
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
    cluster("", "Namespace", "Node", "PersistentVolume", "ComponentStatus");
    namespaced(
        "apps", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ControllerRevision");
    namespaced("batch", "Job", "CronJob");
    namespaced("autoscaling", "HorizontalPodAutoscaler");
    namespaced("policy", "PodDisruptionBudget");
    namespaced("networking.k8s.io", "NetworkPolicy", "Ingress");
    cluster("networking.k8s.io", "IngressClass", "IPAddress", "ServiceCIDR");
    namespaced("rbac.authorization.k8s.io", "Role", "RoleBinding");
    cluster("rbac.authorization.k8s.io", "ClusterRole", "ClusterRoleBinding");
    namespaced("storage.k8s.io", "CSIStorageCapacity");
    cluster(
        "storage.k8s.io",
        "StorageClass",
        "CSIDriver",
        "CSINode",
        "VolumeAttachment",
        "VolumeAttributesClass");
    cluster("scheduling.k8s.io", "PriorityClass");
    cluster("node.k8s.io", "RuntimeClass");
    cluster(
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding");
    cluster("apiextensions.k8s.io", "CustomResourceDefinition");
    cluster("apiregistration.k8s.io", "APIService");
    namespaced("coordination.k8s.io", "Lease");
    namespaced("discovery.k8s.io", "EndpointSlice");
    namespaced("events.k8s.io", "Event");
    cluster("certificates.k8s.io", "CertificateSigningRequest", "ClusterTrustBundle");
    cluster("flowcontrol.apiserver.k8s.io", "FlowSchema", "PriorityLevelConfiguration");
    namespaced("resource.k8s.io", "ResourceClaim", "ResourceClaimTemplate");
    cluster("resource.k8s.io", "DeviceClass", "ResourceSlice");
    namespaced("snapshot.storage.k8s.io", "VolumeSnapshot");
    cluster("snapshot.storage.k8s.io", "VolumeSnapshotClass", "VolumeSnapshotContent");
  }

  private KindScopes() {}

  private static void namespaced(String group, String... kinds) {
    for (String kind : kinds) {
      NAMESPACED.put(key(group, kind), true);
    }
  }

  private static void cluster(String group, String... kinds) {
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
