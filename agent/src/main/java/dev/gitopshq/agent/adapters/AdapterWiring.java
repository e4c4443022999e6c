package dev.gitopshq.agent.adapters;

import dev.gitopshq.agent.link.Redactor;
import dev.gitopshq.agent.v1.AdapterBinding;
import dev.gitopshq.agent.v1.AdapterCredential;
import dev.gitopshq.agent.v1.AdaptersWired;
import dev.gitopshq.agent.v1.AppliedObject;
import dev.gitopshq.agent.v1.DirectLabels;
import dev.gitopshq.agent.v1.WireAdapters;
import dev.gitopshq.agent.v1.WiredBinding;
import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the cluster hold exactly the adapter objects the hub's last {@link WireAdapters} asks for:
 * applies each binding's objects ({@link AdapterObjects}) with server-side apply, then deletes the
 * adapter objects it made earlier (label {@code gitopshq.dev/delivery=adapter}) that no binding
 * wants any more. The agent's job runner runs one request at a time and refuses them without the
 * adapter.wire capability ({@link #refused}). Logs names, never Secret values.
 */
public final class AdapterWiring {
  private static final Logger log = LoggerFactory.getLogger(AdapterWiring.class);
  public static final String FIELD_MANAGER = "gitopshq-adapter-wiring";

  /** Why the agent refuses adapter work without the capability. */
  static final String OFF = "the adapter.wire capability is off on this agent";

  /** The kinds the agent makes, in the order it deletes them (consumers before what they use). */
  private static final List<String[]> KINDS =
      List.of(
          new String[] {AdapterObjects.KUSTOMIZATION, "Kustomization"},
          new String[] {AdapterObjects.GIT_REPOSITORY, "GitRepository"},
          new String[] {AdapterObjects.ARGO, "Application"},
          new String[] {AdapterObjects.ARGO, "AppProject"},
          new String[] {AdapterObjects.RBAC, "RoleBinding"},
          new String[] {AdapterObjects.RBAC, "ClusterRoleBinding"},
          new String[] {AdapterObjects.RBAC, "ClusterRole"},
          new String[] {"v1", "ServiceAccount"},
          new String[] {"v1", "Secret"});

  private final Supplier<KubernetesClient> kube;
  private final Duration consumersGone;

  public AdapterWiring(Supplier<KubernetesClient> kube) {
    this(kube, CONSUMERS_GONE);
  }

  /** For tests: another wait for removed Kustomizations and Applications. */
  AdapterWiring(Supplier<KubernetesClient> kube, Duration consumersGone) {
    this.kube = kube;
    this.consumersGone = consumersGone;
  }

  /** The answer without the adapter.wire capability: nothing is changed. */
  public static AdaptersWired refused(WireAdapters request) {
    return AdaptersWired.newBuilder()
        .setRequestId(request.getRequestId())
        .setRefused(true)
        .setError(OFF)
        .build();
  }

  /** Applies the bindings and removes what no binding wants; never throws. */
  public AdaptersWired wire(WireAdapters request) {
    AdaptersWired.Builder out = AdaptersWired.newBuilder().setRequestId(request.getRequestId());
    try {
      KubernetesClient client = kube.get();
      Set<String> wanted = new HashSet<>();
      for (AdapterCredential c : request.getCredentialsList()) {
        GenericKubernetesResource secret = AdapterObjects.secret(c);
        apply(client, secret);
        log.info(
            "adapter wiring: stored the deploy token of {} in Secret {}/{}",
            Redactor.redact(c.getProject()),
            secret.getMetadata().getNamespace(),
            secret.getMetadata().getName());
      }
      List<TenantRules.Resource> resources = null;
      Set<String> missing = new TreeSet<>();
      for (AdapterBinding b : request.getBindingsList()) {
        boolean flux = b.getAdapter().equals("flux");
        String secretNs = flux ? AdapterObjects.FLUX_NAMESPACE : AdapterObjects.ARGOCD_NAMESPACE;
        String secretName = b.getCredential();
        // One look per Secret, however many bindings of the project name it.
        if (wanted.add(key("v1", "Secret", secretNs, secretName))
            && client.secrets().inNamespace(secretNs).withName(secretName).get() == null) {
          missing.add(secretName);
        }
        WiredBinding.Builder wired =
            WiredBinding.newBuilder()
                .setProject(b.getProject())
                .setEnvironment(b.getEnvironment())
                .setTenant(b.getTenant());
        try {
          List<GenericKubernetesResource> objects;
          if (flux) {
            if (resources == null) {
              resources = discover(client);
            }
            objects =
                AdapterObjects.flux(
                    b,
                    TenantRules.derive(
                        AdapterObjects.fence(b), resources, b.getCreatedNamespacesList()));
          } else {
            objects = AdapterObjects.argo(b);
          }
          for (String ns : b.getCreatedNamespacesList()) {
            createNamespace(client, ns);
          }
          for (GenericKubernetesResource o : objects) {
            wanted.add(key(o));
          }
          for (GenericKubernetesResource o : objects) {
            apply(client, o);
            wired.addObjects(applied(o));
          }
          wired.setOutcome("wired");
        } catch (KubernetesClientException e) {
          wired.setOutcome("failed").setMessage(Redactor.redact(problem(e)));
        }
        out.addBindings(wired);
      }
      out.addAllMissingCredentials(missing);
      prune(client, wanted, out);
      log.info(
          "adapter wiring: {} binding(s), {} removed object(s)",
          request.getBindingsCount(),
          out.getRemovedCount());
    } catch (RuntimeException e) {
      String why = e instanceof KubernetesClientException k ? problem(k) : e.getMessage();
      out.setError(Redactor.redact(String.valueOf(why)));
      log.warn("adapter wiring failed: {}", out.getError());
    }
    return out.build();
  }

  private static void createNamespace(KubernetesClient client, String ns) {
    if (client.namespaces().withName(ns).get() == null) {
      client
          .namespaces()
          .resource(
              new NamespaceBuilder()
                  .withNewMetadata()
                  .withName(ns)
                  .withLabels(Map.of(DirectLabels.MANAGED_BY, DirectLabels.MANAGED_BY_VALUE))
                  .endMetadata()
                  .build())
          .create();
    }
  }

  private static void apply(KubernetesClient client, GenericKubernetesResource o) {
    op(client, o.getApiVersion(), o.getKind(), o.getMetadata().getNamespace())
        .resource(o)
        .fieldManager(FIELD_MANAGER)
        .forceConflicts()
        .serverSideApply();
  }

  /** Deletes the adapter objects the agent made that are not in {@code wanted}. */
  /** How long a round waits for removed Kustomizations and Applications to finish deleting. */
  static final Duration CONSUMERS_GONE = Duration.ofSeconds(30);

  /**
   * Deletes the adapter objects the agent made that are not in {@code wanted}: first the
   * Kustomizations and Applications, then, once they are gone, what they use (their finalizers
   * clean up as the tenant's ServiceAccount, or within the AppProject). What they use is kept and
   * reported deferred while one of them is still deleting, for the next round.
   */
  private void prune(KubernetesClient client, Set<String> wanted, AdaptersWired.Builder out) {
    Map<String, String> selector = new LinkedHashMap<>();
    selector.put(DirectLabels.MANAGED_BY, DirectLabels.MANAGED_BY_VALUE);
    selector.put(DirectLabels.DELIVERY, AdapterObjects.DELIVERY_VALUE);
    List<GenericKubernetesResource> consumers = new ArrayList<>();
    List<GenericKubernetesResource> rest = new ArrayList<>();
    for (String[] kind : KINDS) {
      List<GenericKubernetesResource> found;
      try {
        found =
            client
                .genericKubernetesResources(CONTEXTS.get(kind[1]))
                .inAnyNamespace()
                .withLabels(selector)
                .list()
                .getItems();
      } catch (KubernetesClientException e) {
        if (e.getCode() == 404) {
          continue; // the adapter is not installed: nothing of it to remove
        }
        throw e;
      }
      for (GenericKubernetesResource o : found) {
        o.setApiVersion(kind[0]);
        o.setKind(kind[1]);
        if (!wanted.contains(key(o))) {
          (CONSUMERS.contains(kind[1]) ? consumers : rest).add(o);
        }
      }
    }
    for (GenericKubernetesResource o : consumers) {
      delete(client, o);
      out.addRemoved(applied(o));
    }
    long deadline = System.nanoTime() + consumersGone.toNanos();
    while (!consumers.isEmpty()) {
      consumers.removeIf(o -> get(client, o) == null);
      if (consumers.isEmpty() || System.nanoTime() > deadline) {
        break;
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    for (GenericKubernetesResource o : rest) {
      if (consumers.isEmpty()) {
        delete(client, o);
        out.addRemoved(applied(o));
      } else {
        out.addDeferred(applied(o));
      }
    }
  }

  private static final Set<String> CONSUMERS = Set.of("Kustomization", "Application");

  private static void delete(KubernetesClient client, GenericKubernetesResource o) {
    op(client, o.getApiVersion(), o.getKind(), o.getMetadata().getNamespace())
        .withName(o.getMetadata().getName())
        .delete();
  }

  private static GenericKubernetesResource get(
      KubernetesClient client, GenericKubernetesResource o) {
    return op(client, o.getApiVersion(), o.getKind(), o.getMetadata().getNamespace())
        .withName(o.getMetadata().getName())
        .get();
  }

  /** The API resources the cluster serves, for the tenant's RBAC. */
  static List<TenantRules.Resource> discover(KubernetesClient client) {
    List<TenantRules.Resource> out = new ArrayList<>();
    add(out, "", client.getApiResources("v1"));
    for (APIGroup g : client.getApiGroups().getGroups()) {
      add(out, g.getName(), client.getApiResources(g.getPreferredVersion().getGroupVersion()));
    }
    return out;
  }

  private static void add(List<TenantRules.Resource> out, String group, APIResourceList list) {
    if (list == null) {
      return;
    }
    for (APIResource r : list.getResources()) {
      out.add(
          new TenantRules.Resource(
              group, r.getKind(), r.getName(), Boolean.TRUE.equals(r.getNamespaced())));
    }
  }

  /**
   * The kinds the agent makes, described without discovery: a kind whose CRD is not installed
   * answers 404 instead of failing before the request.
   */
  private static final Map<String, ResourceDefinitionContext> CONTEXTS =
      Map.of(
          "Kustomization",
              crd(AdapterObjects.KUSTOMIZATION, "Kustomization", "kustomizations", true),
          "GitRepository",
              crd(AdapterObjects.GIT_REPOSITORY, "GitRepository", "gitrepositories", true),
          "Application", crd(AdapterObjects.ARGO, "Application", "applications", true),
          "AppProject", crd(AdapterObjects.ARGO, "AppProject", "appprojects", true),
          "RoleBinding", crd(AdapterObjects.RBAC, "RoleBinding", "rolebindings", true),
          "ClusterRoleBinding",
              crd(AdapterObjects.RBAC, "ClusterRoleBinding", "clusterrolebindings", false),
          "ClusterRole", crd(AdapterObjects.RBAC, "ClusterRole", "clusterroles", false),
          "ServiceAccount", crd("v1", "ServiceAccount", "serviceaccounts", true),
          "Secret", crd("v1", "Secret", "secrets", true));

  private static ResourceDefinitionContext crd(
      String apiVersion, String kind, String plural, boolean namespaced) {
    int slash = apiVersion.indexOf('/');
    return new ResourceDefinitionContext.Builder()
        .withGroup(slash < 0 ? "" : apiVersion.substring(0, slash))
        .withVersion(apiVersion.substring(slash + 1))
        .withKind(kind)
        .withPlural(plural)
        .withNamespaced(namespaced)
        .build();
  }

  static NonNamespaceOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      op(KubernetesClient client, String apiVersion, String kind, String namespace) {
    var all = kinds(client, apiVersion, kind);
    return namespace == null || namespace.isEmpty() ? all : all.inNamespace(namespace);
  }

  /** Every object of the kind, by its known description when it is one the agent makes. */
  static MixedOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      kinds(KubernetesClient client, String apiVersion, String kind) {
    ResourceDefinitionContext context = CONTEXTS.get(kind);
    return context == null
        ? client.genericKubernetesResources(apiVersion, kind)
        : client.genericKubernetesResources(context);
  }

  private static String key(GenericKubernetesResource o) {
    return key(
        o.getApiVersion(), o.getKind(), o.getMetadata().getNamespace(), o.getMetadata().getName());
  }

  private static String key(String apiVersion, String kind, String namespace, String name) {
    return apiVersion + "|" + kind + "|" + (namespace == null ? "" : namespace) + "|" + name;
  }

  private static AppliedObject applied(GenericKubernetesResource o) {
    Map<String, String> labels = o.getMetadata().getLabels();
    String tenant = labels == null ? "" : labels.getOrDefault(DirectLabels.TENANT, "");
    return AppliedObject.newBuilder()
        .setTenant(tenant)
        .setApiVersion(o.getApiVersion())
        .setKind(o.getKind())
        .setNamespace(o.getMetadata().getNamespace() == null ? "" : o.getMetadata().getNamespace())
        .setName(o.getMetadata().getName())
        .build();
  }

  private static String problem(KubernetesClientException e) {
    if (e.getCode() == 404) {
      return "the adapter's API is not installed on this cluster (" + e.getMessage() + ")";
    }
    if (e.getCode() == 403) {
      return "the agent's ServiceAccount may not do this; give it the chart's adapterWire RBAC ("
          + e.getMessage()
          + ")";
    }
    return e.getMessage();
  }
}
