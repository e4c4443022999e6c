package dev.gitopshq.agent.deploy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.gitopshq.agent.v1.AppliedObject;
import dev.gitopshq.agent.v1.ApplyFile;
import dev.gitopshq.agent.v1.DirectLabels;
import dev.gitopshq.agent.v1.ObjectResult;
import dev.gitopshq.agent.v1.TenantFence;
import dev.gitopshq.agent.v1.TenantFences;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a direct apply will do, computed from the release's files, the objects earlier applies left,
 * the project's fence and the agent's {@code directDeploy.*} values, before anything is written to
 * the cluster (it only reads: discovery, and each object's live labels): the objects to apply (each
 * with its namespace resolved and the GitOpsHQ labels added), the ones that cannot be applied and
 * why, the ones refused, and the ones to prune.
 *
 * <p>An object is <b>refused</b> when the project's {@link TenantFence} does not allow it ({@link
 * TenantFences#objectRefusal}, with the object's resolved namespace and its scope from discovery)
 * or when an object of that identity already exists on the cluster without this delivery's labels
 * ({@link #managed}): a direct apply never takes over what GitOpsHQ did not place for this project
 * environment and tenant. One refusal refuses the whole apply: the deployer applies and prunes
 * nothing, so a release is never half-applied because part of it is out of bounds.
 *
 * <p>Pruning is all or nothing: when any file cannot be planned, nothing is pruned, because an
 * object whose file could not be read might still be wanted. An object outside the fence is never
 * pruned, whoever placed it: it is {@linkplain #kept kept} and reported.
 *
 * @param apply the objects to apply, in apply order (namespaces and CRDs first, workloads last)
 * @param failures objects (or files) that will not be applied, with the reason
 * @param refused objects the fence or their live owner forbids (action {@code refused}); any at all
 *     means nothing is applied
 * @param prune objects earlier applies left that the release no longer holds
 * @param kept objects earlier applies left that the release no longer holds but that are outside
 *     the fence, so are not pruned (action {@code kept})
 */
public record ApplyPlan(
    List<Planned> apply,
    List<ObjectResult> failures,
    List<ObjectResult> refused,
    List<AppliedObject> prune,
    List<ObjectResult> kept) {

  /** The label every object of a direct apply carries, with {@link #MANAGED_BY_VALUE}. */
  public static final String MANAGED_BY = DirectLabels.MANAGED_BY;

  public static final String MANAGED_BY_VALUE = DirectLabels.MANAGED_BY_VALUE;

  /** Marks an object as placed by a direct apply (value {@code direct}). */
  public static final String DELIVERY = DirectLabels.DELIVERY;

  public static final String PROJECT = DirectLabels.PROJECT;
  public static final String ENVIRONMENT = DirectLabels.ENVIRONMENT;
  public static final String TENANT = DirectLabels.TENANT;

  /** Whether a kind is namespaced, as the cluster's discovery says; empty when it is unknown. */
  @FunctionalInterface
  public interface Scopes {
    Optional<Boolean> namespaced(String apiVersion, String kind);
  }

  /**
   * The labels of the object the cluster holds under an identity: empty when there is none, its
   * labels (an empty map when it has none) otherwise.
   */
  @FunctionalInterface
  public interface Live {
    /**
     * @throws Unreadable when the cluster cannot say (e.g. RBAC forbids reading the kind)
     */
    Optional<Map<String, String>> labels(AppliedObject identity);
  }

  /** The cluster could not say whether an object exists; the message says why, for people. */
  public static final class Unreadable extends RuntimeException {
    public Unreadable(String message) {
      super(message);
    }
  }

  /** One object to apply, and where it came from. */
  public record Planned(String path, String tenant, GenericKubernetesResource object) {
    /** The object's identity as the hub records it. */
    public AppliedObject identity() {
      return AppliedObject.newBuilder()
          .setTenant(tenant)
          .setApiVersion(object.getApiVersion())
          .setKind(object.getKind())
          .setNamespace(nullToEmpty(object.getMetadata().getNamespace()))
          .setName(object.getMetadata().getName())
          .build();
    }
  }

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Pattern DOCUMENT_SEPARATOR = Pattern.compile("(?m)^---\\s*$");
  private static final Pattern LABEL_VALUE =
      Pattern.compile("^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$");

  /** Kinds applied before the others, in this order; everything else follows, workloads last. */
  private static final List<String> FIRST =
      List.of(
          "CustomResourceDefinition",
          "Namespace",
          "ServiceAccount",
          "ClusterRole",
          "ClusterRoleBinding",
          "Role",
          "RoleBinding",
          "ConfigMap",
          "Secret",
          "PersistentVolumeClaim",
          "Service");

  private static final Set<String> LAST =
      Set.of("Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "Ingress");

  public ApplyPlan {
    apply = List.copyOf(apply);
    failures = List.copyOf(failures);
    refused = List.copyOf(refused);
    prune = List.copyOf(prune);
    kept = List.copyOf(kept);
  }

  /**
   * Plans an apply.
   *
   * @param files the files under the cluster's directory ({@code <tenant>/<service>/<file>})
   * @param previous what earlier applies of this project environment placed
   * @param defaultNamespace the namespace for namespaced objects whose file names none; empty: none
   * @param fence the project's fence ({@link TenantFences#DEFAULT} when the hub sent none)
   * @param live what the cluster holds, asked only for objects the fence allows
   */
  public static ApplyPlan of(
      String project,
      String environment,
      List<ApplyFile> files,
      List<AppliedObject> previous,
      String defaultNamespace,
      TenantFence fence,
      Scopes scopes,
      Live live) {
    List<Planned> planned = new ArrayList<>();
    List<ObjectResult> failures = new ArrayList<>();
    List<ObjectResult> refused = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (ApplyFile f : files) {
      String path = f.getPath();
      int slash = path.indexOf('/');
      if (slash <= 0) {
        failures.add(fileFailure(path, "is not under a tenant directory (<tenant>/<service>/…)"));
        continue;
      }
      String tenant = path.substring(0, slash);
      String file = path.substring(path.lastIndexOf('/') + 1);
      if (file.equals("kustomization.yaml") || file.equals("kustomization.yml")) {
        failures.add(
            fileFailure(
                path,
                "is a Kustomize binding, which direct deploy does not build; deliver it with Argo"
                    + " CD or Flux"));
        continue;
      }
      if (!(file.endsWith(".yaml") || file.endsWith(".yml") || file.endsWith(".json"))) {
        continue;
      }
      List<Map<String, Object>> docs;
      try {
        docs = documents(f.getContent());
      } catch (JsonProcessingException e) {
        failures.add(fileFailure(path, "is not valid YAML: " + e.getOriginalMessage()));
        continue;
      }
      for (Map<String, Object> doc : docs) {
        GenericKubernetesResource o;
        try {
          o = YAML.convertValue(doc, GenericKubernetesResource.class);
        } catch (IllegalArgumentException e) {
          failures.add(fileFailure(path, "does not hold a Kubernetes object"));
          continue;
        }
        String problem = plan(o, project, environment, tenant, defaultNamespace, scopes);
        if (problem != null) {
          failures.add(
              ObjectResult.newBuilder()
                  .setObject(identity(tenant, o))
                  .setAction("failed")
                  .setHealth("failed")
                  .setMessage(problem)
                  .setPath(path)
                  .build());
          continue;
        }
        Planned p = new Planned(path, tenant, o);
        if (!seen.add(key(p.identity()))) {
          failures.add(
              ObjectResult.newBuilder()
                  .setObject(p.identity())
                  .setAction("failed")
                  .setHealth("failed")
                  .setMessage("the release holds this object twice; the first one is applied")
                  .setPath(path)
                  .build());
          continue;
        }
        String refusal = refusal(p, project, environment, fence, scopes, live);
        if (refusal != null) {
          refused.add(
              ObjectResult.newBuilder()
                  .setObject(p.identity())
                  .setAction("refused")
                  .setHealth("failed")
                  .setMessage(refusal)
                  .setPath(path)
                  .build());
          continue;
        }
        planned.add(p);
      }
    }
    planned.sort(Comparator.comparingInt(ApplyPlan::rank).thenComparing(Planned::path));
    List<AppliedObject> prune = new ArrayList<>();
    List<ObjectResult> kept = new ArrayList<>();
    if (failures.isEmpty() && refused.isEmpty()) {
      Set<String> current = new HashSet<>();
      planned.forEach(p -> current.add(key(p.identity())));
      Set<String> pruned = new HashSet<>();
      for (AppliedObject o : previous) {
        if (current.contains(key(o)) || !pruned.add(key(o))) {
          continue;
        }
        boolean namespaced =
            scopes.namespaced(o.getApiVersion(), o.getKind()).orElse(!o.getNamespace().isEmpty());
        String outside =
            TenantFences.objectRefusal(
                fence, o.getApiVersion(), o.getKind(), o.getName(), o.getNamespace(), namespaced);
        if (outside == null) {
          prune.add(o);
        } else {
          kept.add(
              ObjectResult.newBuilder()
                  .setObject(o)
                  .setAction("kept")
                  .setHealth("healthy")
                  .setMessage("not pruned, it is outside the project's fence: " + outside)
                  .build());
        }
      }
    }
    return new ApplyPlan(planned, failures, refused, prune, kept);
  }

  /**
   * Why a planned object may not be applied, or null: the fence first (without asking the cluster
   * about an object the project may not touch at all), then whoever holds its identity now.
   */
  private static String refusal(
      Planned p, String project, String environment, TenantFence fence, Scopes scopes, Live live) {
    GenericKubernetesResource o = p.object();
    String namespace = nullToEmpty(o.getMetadata().getNamespace());
    boolean namespaced = scopes.namespaced(o.getApiVersion(), o.getKind()).orElseThrow();
    String outside =
        TenantFences.objectRefusal(
            fence,
            o.getApiVersion(),
            o.getKind(),
            o.getMetadata().getName(),
            namespace,
            namespaced);
    if (outside != null) {
      return outside;
    }
    String what =
        o.getKind()
            + " "
            + (namespace.isEmpty() ? "" : namespace + "/")
            + o.getMetadata().getName();
    Optional<Map<String, String>> existing;
    try {
      existing = live.labels(p.identity());
    } catch (Unreadable e) {
      return what
          + ": cannot tell whether it exists and who manages it, so it is not applied: "
          + e.getMessage();
    }
    if (existing.isEmpty() || managed(existing.get(), project, environment, p.tenant())) {
      return null;
    }
    return what
        + " exists and is not managed by GitOpsHQ for project "
        + project
        + "; delete it or label it to hand it over ("
        + String.join(
            ", ",
            labels(project, environment, p.tenant()).entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .toList())
        + ")";
  }

  /** The labels that mark an object as this delivery's ({@link DirectLabels}). */
  public static Map<String, String> labels(String project, String environment, String tenant) {
    return DirectLabels.of(project, environment, tenant);
  }

  /**
   * Whether a live object carries all of this delivery's labels ({@code managed-by} included), so a
   * direct apply may update it.
   */
  public static boolean managed(
      Map<String, String> liveLabels, String project, String environment, String tenant) {
    return liveLabels != null
        && MANAGED_BY_VALUE.equals(liveLabels.get(MANAGED_BY))
        && owns(liveLabels, project, environment, tenant);
  }

  /** Whether a live object carries this delivery's labels, so pruning may delete it. */
  public static boolean owns(
      Map<String, String> liveLabels, String project, String environment, String tenant) {
    if (liveLabels == null) {
      return false;
    }
    return labels(project, environment, tenant).entrySet().stream()
        .filter(e -> !e.getKey().equals(MANAGED_BY))
        .allMatch(e -> e.getValue().equals(liveLabels.get(e.getKey())));
  }

  /**
   * The identity two applies compare objects by: API group (not version: an object keeps its
   * identity when its apiVersion moves from v1beta1 to v1), kind, namespace and name, per tenant.
   */
  static String key(AppliedObject o) {
    String group = o.getApiVersion().contains("/") ? o.getApiVersion().split("/")[0] : "";
    return String.join("\u0000", o.getTenant(), group, o.getKind(), o.getNamespace(), o.getName());
  }

  private static String plan(
      GenericKubernetesResource o,
      String project,
      String environment,
      String tenant,
      String defaultNamespace,
      Scopes scopes) {
    if (o.getApiVersion() == null || o.getApiVersion().isBlank()) {
      return "has no apiVersion";
    }
    if (o.getKind() == null || o.getKind().isBlank()) {
      return "has no kind";
    }
    if (o.getMetadata() == null
        || o.getMetadata().getName() == null
        || o.getMetadata().getName().isBlank()) {
      return "has no metadata.name";
    }
    Optional<Boolean> namespaced = scopes.namespaced(o.getApiVersion(), o.getKind());
    if (namespaced.isEmpty()) {
      return "the cluster does not serve " + o.getKind() + " in " + o.getApiVersion();
    }
    ObjectMeta meta = o.getMetadata();
    if (namespaced.get()) {
      if (meta.getNamespace() == null || meta.getNamespace().isBlank()) {
        if (defaultNamespace == null || defaultNamespace.isEmpty()) {
          return "names no namespace and the agent has no directDeploy.defaultNamespace";
        }
        meta.setNamespace(defaultNamespace);
      }
    } else {
      meta.setNamespace(null);
    }
    Map<String, String> labels = labels(project, environment, tenant);
    for (String v : labels.values()) {
      if (v.length() > 63 || !LABEL_VALUE.matcher(v).matches()) {
        return "cannot be labelled with '" + v + "' (not a label value)";
      }
    }
    Map<String, String> merged =
        new LinkedHashMap<>(meta.getLabels() == null ? Map.of() : meta.getLabels());
    merged.putAll(labels);
    meta.setLabels(merged);
    // Server-side apply refuses objects that carry these; a rendered file never should.
    meta.setResourceVersion(null);
    meta.setUid(null);
    meta.setManagedFields(null);
    o.getAdditionalProperties().remove("status");
    return null;
  }

  private static int rank(Planned p) {
    String kind = p.object().getKind();
    int i = FIRST.indexOf(kind);
    if (i >= 0) {
      return i;
    }
    return LAST.contains(kind) ? FIRST.size() + 1 : FIRST.size();
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> documents(String text) throws JsonProcessingException {
    List<Map<String, Object>> out = new ArrayList<>();
    for (String part : DOCUMENT_SEPARATOR.split(text)) {
      if (part.isBlank()) {
        continue;
      }
      Object doc = YAML.readValue(part, Object.class);
      if (doc == null) {
        continue; // Only comments, e.g. an empty Helm template.
      }
      if (!(doc instanceof Map)) {
        throw new JsonProcessingException("the document is not a YAML mapping") {};
      }
      out.add(new HashMap<>((Map<String, Object>) doc));
    }
    return out;
  }

  private static AppliedObject identity(String tenant, GenericKubernetesResource o) {
    ObjectMeta m = o.getMetadata();
    return AppliedObject.newBuilder()
        .setTenant(tenant)
        .setApiVersion(nullToEmpty(o.getApiVersion()))
        .setKind(nullToEmpty(o.getKind()))
        .setNamespace(m == null ? "" : nullToEmpty(m.getNamespace()))
        .setName(m == null ? "" : nullToEmpty(m.getName()))
        .build();
  }

  private static ObjectResult fileFailure(String path, String why) {
    return ObjectResult.newBuilder()
        .setAction("failed")
        .setHealth("failed")
        .setMessage(path + " " + why)
        .setPath(path)
        .build();
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
