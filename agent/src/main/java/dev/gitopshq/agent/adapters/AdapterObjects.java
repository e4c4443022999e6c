package dev.gitopshq.agent.adapters;

import dev.gitopshq.agent.v1.AdapterBinding;
import dev.gitopshq.agent.v1.AdapterCredential;
import dev.gitopshq.agent.v1.AdapterNames;
import dev.gitopshq.agent.v1.DirectLabels;
import dev.gitopshq.agent.v1.TenantFence;
import dev.gitopshq.agent.v1.TenantFences;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The objects a runtime adapter needs to deliver one binding, built from the hub's {@link
 * AdapterBinding} and the cluster's API resources. Pure: nothing here talks to the cluster.
 *
 * <p>Flux (in {@value #FLUX_NAMESPACE}): a GitRepository per project environment on the deploy
 * branch, and per tenant a Kustomization on the tenant's path that runs as the tenant's
 * ServiceAccount, whose ClusterRole is derived from the fence ({@link TenantRules}) and bound in
 * each of the tenant's namespaces only. Argo CD (in {@value #ARGOCD_NAMESPACE}): an AppProject
 * whose source is the project's repository, whose destinations are the tenant's namespaces and
 * whose resource lists follow the fence, and an Application in it.
 */
public final class AdapterObjects {
  public static final String FLUX_NAMESPACE = "flux-system";
  public static final String ARGOCD_NAMESPACE = "argocd";

  /** Marks an adapter object the agent made (label {@link DirectLabels#DELIVERY}). */
  public static final String DELIVERY_VALUE = "adapter";

  public static final String GIT_REPOSITORY = "source.toolkit.fluxcd.io/v1";
  public static final String KUSTOMIZATION = "kustomize.toolkit.fluxcd.io/v1";
  public static final String ARGO = "argoproj.io/v1alpha1";
  static final String RBAC = "rbac.authorization.k8s.io/v1";
  static final String IN_CLUSTER = "https://kubernetes.default.svc";

  private AdapterObjects() {}

  /** The labels of every adapter object of a binding (empty tenant/env for shared ones). */
  static Map<String, String> labels(String project, String environment, String tenant) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(DirectLabels.MANAGED_BY, DirectLabels.MANAGED_BY_VALUE);
    labels.put(DirectLabels.DELIVERY, DELIVERY_VALUE);
    labels.put(DirectLabels.PROJECT, project);
    if (!environment.isEmpty()) {
      labels.put(DirectLabels.ENVIRONMENT, environment);
    }
    if (!tenant.isEmpty()) {
      labels.put(DirectLabels.TENANT, tenant);
    }
    return labels;
  }

  /** The name of a binding's Kustomization, ServiceAccount, AppProject and Application. */
  public static String bindingName(AdapterBinding b) {
    return AdapterNames.name(b.getProject(), b.getEnvironment(), b.getTenant());
  }

  /** The name of the GitRepository of a project environment. */
  public static String sourceName(AdapterBinding b) {
    return AdapterNames.name(b.getProject(), b.getEnvironment());
  }

  /** The Secret a deploy token is stored in: basic-auth for Flux, a repository for Argo CD. */
  static GenericKubernetesResource secret(AdapterCredential c) {
    boolean argo = c.getAdapter().equals("argocd");
    Map<String, String> labels = labels(c.getProject(), "", "");
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("username", c.getUsername());
    data.put("password", c.getPassword());
    if (argo) {
      labels.put("argocd.argoproj.io/secret-type", "repository");
      data.put("type", "git");
      data.put("url", c.getRepoUrl());
      data.put("project", "");
    }
    data.values().removeIf(v -> v.equals(""));
    GenericKubernetesResource s =
        object(
            "v1",
            "Secret",
            argo ? ARGOCD_NAMESPACE : FLUX_NAMESPACE,
            c.getName(),
            labels,
            Map.of("stringData", data, "type", argo ? "Opaque" : "kubernetes.io/basic-auth"));
    s.getMetadata().setAnnotations(Map.of("gitopshq.dev/token-id", c.getTokenId()));
    return s;
  }

  /**
   * The objects of one Flux binding, in the order they are applied: the tenant's identity, its
   * RBAC, the source, the Kustomization.
   */
  static List<GenericKubernetesResource> flux(AdapterBinding b, TenantRules.Rules rules) {
    String name = bindingName(b);
    Map<String, String> labels = labels(b.getProject(), b.getEnvironment(), b.getTenant());
    List<GenericKubernetesResource> out = new ArrayList<>();
    out.add(object("v1", "ServiceAccount", FLUX_NAMESPACE, name, labels, Map.of()));
    out.add(object(RBAC, "ClusterRole", "", name, labels, Map.of("rules", rules.namespaced())));
    Map<String, Object> subject =
        Map.of("kind", "ServiceAccount", "name", name, "namespace", FLUX_NAMESPACE);
    Map<String, Object> roleRef =
        Map.of("apiGroup", "rbac.authorization.k8s.io", "kind", "ClusterRole", "name", name);
    for (String ns : b.getNamespacesList()) {
      out.add(
          object(
              RBAC,
              "RoleBinding",
              ns,
              name,
              labels,
              Map.of("roleRef", roleRef, "subjects", List.of(subject))));
    }
    if (!rules.cluster().isEmpty()) {
      String clusterName =
          AdapterNames.name(b.getProject(), b.getEnvironment(), b.getTenant(), "cluster");
      out.add(
          object(RBAC, "ClusterRole", "", clusterName, labels, Map.of("rules", rules.cluster())));
      out.add(
          object(
              RBAC,
              "ClusterRoleBinding",
              "",
              clusterName,
              labels,
              Map.of(
                  "roleRef",
                  Map.of(
                      "apiGroup",
                      "rbac.authorization.k8s.io",
                      "kind",
                      "ClusterRole",
                      "name",
                      clusterName),
                  "subjects",
                  List.of(subject))));
    }
    String interval = Math.max(10, b.getIntervalSeconds()) + "s";
    out.add(
        object(
            GIT_REPOSITORY,
            "GitRepository",
            FLUX_NAMESPACE,
            sourceName(b),
            labels(b.getProject(), b.getEnvironment(), ""),
            Map.of(
                "spec",
                Map.of(
                    "url",
                    b.getRepoUrl(),
                    "ref",
                    Map.of("branch", b.getBranch()),
                    "interval",
                    interval,
                    "secretRef",
                    Map.of("name", b.getCredential())))));
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("sourceRef", Map.of("kind", "GitRepository", "name", sourceName(b)));
    spec.put("path", "./" + b.getPath());
    spec.put("interval", interval);
    spec.put("retryInterval", "30s");
    spec.put("timeout", "3m");
    spec.put("prune", true);
    // Flux's own health wait polls every 5 s (fixed in kustomize-controller); the agent reads the
    // workloads' rollout itself when the hub verifies, so Ready here means applied.
    spec.put("wait", false);
    spec.put("serviceAccountName", name);
    out.add(
        object(KUSTOMIZATION, "Kustomization", FLUX_NAMESPACE, name, labels, Map.of("spec", spec)));
    return out;
  }

  /** The AppProject and Application of one Argo CD binding. */
  static List<GenericKubernetesResource> argo(AdapterBinding b) {
    String name = bindingName(b);
    Map<String, String> labels = labels(b.getProject(), b.getEnvironment(), b.getTenant());
    List<Map<String, Object>> destinations = new ArrayList<>();
    for (String ns : b.getNamespacesList()) {
      destinations.add(Map.of("server", IN_CLUSTER, "namespace", ns));
    }
    Map<String, Object> project = new LinkedHashMap<>();
    project.put(
        "description",
        "GitOpsHQ: " + b.getProject() + " " + b.getEnvironment() + " " + b.getTenant());
    project.put("sourceRepos", List.of(b.getRepoUrl()));
    project.put("destinations", destinations);
    project.put("clusterResourceWhitelist", argoKinds(clusterKinds(b)));
    project.put("namespaceResourceBlacklist", argoKinds(fence(b).getDeniedKindsList()));
    Map<String, Object> app = new LinkedHashMap<>();
    app.put("project", name);
    app.put(
        "source",
        Map.of(
            "repoURL",
            b.getRepoUrl(),
            "targetRevision",
            b.getBranch(),
            "path",
            b.getPath(),
            // The tenant's objects are in <service>/ directories under its path.
            "directory",
            Map.of("recurse", true)));
    app.put(
        "destination",
        Map.of(
            "server",
            IN_CLUSTER,
            "namespace",
            b.getNamespacesCount() == 0 ? "default" : b.getNamespaces(0)));
    app.put("syncPolicy", Map.of("automated", Map.of("prune", true, "selfHeal", true)));
    GenericKubernetesResource application =
        object(ARGO, "Application", ARGOCD_NAMESPACE, name, labels, Map.of("spec", app));
    // Removing the binding removes what Argo CD delivered for it, as Flux's prune does.
    application.getMetadata().setFinalizers(List.of("resources-finalizer.argocd.argoproj.io"));
    return List.of(
        object(ARGO, "AppProject", ARGOCD_NAMESPACE, name, labels, Map.of("spec", project)),
        application);
  }

  /**
   * The cluster-scoped kinds a binding may deliver: the fence's, and Namespace when it makes one.
   */
  static List<String> clusterKinds(AdapterBinding b) {
    List<String> kinds = new ArrayList<>(fence(b).getClusterScopedKindsList());
    if (b.getCreatedNamespacesCount() > 0 && !kinds.contains("/Namespace")) {
      kinds.add("/Namespace");
    }
    return kinds;
  }

  /** Fence kind entries as Argo CD's group/kind pairs ({@code Kind} alone: every group). */
  static List<Map<String, String>> argoKinds(List<String> entries) {
    List<Map<String, String>> out = new ArrayList<>();
    for (String e : entries) {
      int slash = e.indexOf('/');
      out.add(
          slash < 0
              ? Map.of("group", "*", "kind", e)
              : Map.of("group", e.substring(0, slash), "kind", e.substring(slash + 1)));
    }
    return out;
  }

  /** The fence of a binding, or the default one when the hub sent none. */
  static TenantFence fence(AdapterBinding b) {
    return b.hasFence() ? b.getFence() : TenantFences.DEFAULT;
  }

  static GenericKubernetesResource object(
      String apiVersion,
      String kind,
      String namespace,
      String name,
      Map<String, String> labels,
      Map<String, Object> fields) {
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion(apiVersion);
    r.setKind(kind);
    ObjectMetaBuilder meta =
        new ObjectMetaBuilder().withName(name).withLabels(new LinkedHashMap<>(labels));
    if (!namespace.isEmpty()) {
      meta.withNamespace(namespace);
    }
    r.setMetadata(meta.build());
    fields.forEach(r::setAdditionalProperty);
    return r;
  }
}
