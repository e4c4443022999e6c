package dev.gitopshq.agent.inspect;

import com.google.protobuf.Timestamp;
import dev.gitopshq.agent.inventory.InventoryWatch;
import dev.gitopshq.agent.inventory.Summaries;
import dev.gitopshq.agent.link.Redactor;
import dev.gitopshq.agent.v1.ClusterAddresses;
import dev.gitopshq.agent.v1.InventoryObject;
import dev.gitopshq.agent.v1.ReadResource;
import dev.gitopshq.agent.v1.RelatedResource;
import dev.gitopshq.agent.v1.ResourceDetail;
import dev.gitopshq.agent.v1.ResourceEvent;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.HTTPIngressPath;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Reads one object live for the hub. A Secret's values are replaced by {@code <redacted>} before
 * the YAML is written, whatever was asked; managed fields are dropped unless asked for. Bounded: 1
 * MiB of YAML, {@link #MAX_EVENTS} events and {@link #MAX_RELATED} related resources.
 */
public final class Inspector {
  public static final String REDACTED = "<redacted>";
  static final int MAX_YAML_BYTES = 1 << 20;
  static final int MAX_EVENTS = 100;
  static final int MAX_RELATED = 200;

  private final Supplier<KubernetesClient> kube;
  private final Predicate<String> namespaceAllowed;
  private final boolean diagnostics;

  /**
   * @param namespaceAllowed whether diagnostics may look into a namespace ({@code
   *     diagnostics.allowedNamespaces})
   * @param diagnostics whether the agent has {@code diagnostics.read} (events)
   */
  public Inspector(
      Supplier<KubernetesClient> kube, Predicate<String> namespaceAllowed, boolean diagnostics) {
    this.kube = kube;
    this.namespaceAllowed = namespaceAllowed;
    this.diagnostics = diagnostics;
  }

  public ResourceDetail read(ReadResource req) {
    ResourceDetail.Builder out = ResourceDetail.newBuilder().setRequestId(req.getRequestId());
    if (!namespaceAllowed.test(req.getNamespace())) {
      return out.setOutcome(ResourceDetail.Outcome.FORBIDDEN)
          .setError(
              "namespace "
                  + req.getNamespace()
                  + " is outside this agent's diagnostics.allowedNamespaces")
          .build();
    }
    try {
      HasMetadata obj = fetch(req);
      if (obj == null) {
        return out.setOutcome(ResourceDetail.Outcome.NOT_FOUND)
            .setError(describe(req) + " not found")
            .build();
      }
      out.setOutcome(ResourceDetail.Outcome.FOUND);
      yaml(obj, req.getIncludeManagedFields(), out);
      if (req.getIncludeEvents() && diagnostics) {
        events(obj, out);
      }
      related(obj, out);
      return out.build();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 403) {
        return out.setOutcome(ResourceDetail.Outcome.FORBIDDEN)
            .setError("the agent's RBAC does not allow reading " + describe(req))
            .build();
      }
      if (e.getCode() == 404) {
        return out.setOutcome(ResourceDetail.Outcome.NOT_FOUND)
            .setError(describe(req) + " not found")
            .build();
      }
      if (e.getMessage() != null
          && e.getMessage().startsWith("Could not find the metadata for the given apiVersion")) {
        // Discovery does not know this kind in this group/version: nothing by that name exists.
        String gv =
            req.getGroup().isEmpty() ? req.getVersion() : req.getGroup() + "/" + req.getVersion();
        return out.setOutcome(ResourceDetail.Outcome.NOT_FOUND)
            .setError("the cluster serves no kind " + req.getKind() + " in " + gv)
            .build();
      }
      return out.setOutcome(ResourceDetail.Outcome.FAILED)
          .setError(
              ClusterAddresses.redact(
                  Redactor.redact("reading " + describe(req) + " failed: " + e.getMessage())))
          .build();
    }
  }

  private static String describe(ReadResource r) {
    String gv = r.getGroup().isEmpty() ? r.getVersion() : r.getGroup() + "/" + r.getVersion();
    return r.getKind()
        + " "
        + (r.getNamespace().isEmpty() ? "" : r.getNamespace() + "/")
        + r.getName()
        + " ("
        + gv
        + ")";
  }

  private HasMetadata fetch(ReadResource req) {
    KubernetesClient client = kube.get();
    String apiVersion =
        req.getGroup().isEmpty() ? req.getVersion() : req.getGroup() + "/" + req.getVersion();
    for (Class<? extends HasMetadata> type : InventoryWatch.kinds()) {
      if (type.getSimpleName().equals(req.getKind())
          && apiVersion.equals(HasMetadata.getApiVersion(type))) {
        return typed(client, type, req);
      }
    }
    var generic = client.genericKubernetesResources(apiVersion, req.getKind());
    return req.getNamespace().isEmpty()
        ? generic.withName(req.getName()).get()
        : generic.inNamespace(req.getNamespace()).withName(req.getName()).get();
  }

  private static <T extends HasMetadata> T typed(
      KubernetesClient client, Class<T> type, ReadResource req) {
    var op = client.resources(type);
    return req.getNamespace().isEmpty()
        ? op.withName(req.getName()).get()
        : op.inNamespace(req.getNamespace()).withName(req.getName()).get();
  }

  @SuppressWarnings("unchecked")
  private void yaml(HasMetadata obj, boolean managedFields, ResourceDetail.Builder out) {
    var serialization = kube.get().getKubernetesSerialization();
    Map<String, Object> map = serialization.convertValue(obj, Map.class);
    Object metadata = map.get("metadata");
    if (!managedFields && metadata instanceof Map<?, ?> m) {
      ((Map<String, Object>) m).remove("managedFields");
    }
    if ("Secret".equals(obj.getKind())) {
      for (String field : List.of("data", "stringData")) {
        if (map.get(field) instanceof Map<?, ?> values) {
          Map<String, Object> redacted = new LinkedHashMap<>();
          values.keySet().forEach(k -> redacted.put(String.valueOf(k), REDACTED));
          map.put(field, redacted);
        }
      }
      if (metadata instanceof Map<?, ?> m && m.get("annotations") instanceof Map<?, ?> a) {
        // kubectl apply keeps the whole Secret, values included, in this annotation.
        ((Map<String, Object>) a).remove("kubectl.kubernetes.io/last-applied-configuration");
      }
    }
    String yaml = serialization.asYaml(map);
    byte[] bytes = yaml.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_YAML_BYTES) {
      yaml = new String(bytes, 0, MAX_YAML_BYTES, StandardCharsets.UTF_8);
      out.setYamlTruncated(true);
    }
    out.setYaml(yaml);
  }

  private void events(HasMetadata obj, ResourceDetail.Builder out) {
    String ns = obj.getMetadata().getNamespace();
    if (ns == null || ns.isEmpty()) {
      ns = "default";
    }
    String uid = obj.getMetadata().getUid();
    List<Event> events =
        kube.get().v1().events().inNamespace(ns).list().getItems().stream()
            .filter(
                e ->
                    e.getInvolvedObject() != null
                        && Objects.equals(uid, e.getInvolvedObject().getUid()))
            .sorted(Comparator.comparing(Inspector::lastSeen).reversed())
            .limit(MAX_EVENTS)
            .toList();
    for (Event e : events) {
      ResourceEvent.Builder b =
          ResourceEvent.newBuilder()
              .setType(Objects.toString(e.getType(), ""))
              .setReason(Objects.toString(e.getReason(), ""))
              .setMessage(Objects.toString(e.getMessage(), ""))
              .setCount(e.getCount() == null ? 1 : e.getCount())
              .setSource(
                  e.getSource() == null ? "" : Objects.toString(e.getSource().getComponent(), ""));
      Instant first = instant(e.getFirstTimestamp());
      if (first != null) {
        b.setFirstSeen(ts(first));
      }
      b.setLastSeen(ts(lastSeen(e)));
      out.addEvents(b);
    }
  }

  private static Instant lastSeen(Event e) {
    Instant t = instant(e.getLastTimestamp());
    if (t == null && e.getEventTime() != null) {
      t = instant(e.getEventTime().getTime());
    }
    if (t == null) {
      t = instant(e.getMetadata().getCreationTimestamp());
    }
    return t == null ? Instant.EPOCH : t;
  }

  private void related(HasMetadata obj, ResourceDetail.Builder out) {
    KubernetesClient client = kube.get();
    String ns = obj.getMetadata().getNamespace();
    String uid = obj.getMetadata().getUid();
    List<RelatedResource> related = new ArrayList<>();
    List<OwnerReference> owners =
        obj.getMetadata().getOwnerReferences() == null
            ? List.of()
            : obj.getMetadata().getOwnerReferences();
    for (OwnerReference o : owners) {
      String[] gv = splitApiVersion(o.getApiVersion());
      related.add(
          RelatedResource.newBuilder()
              .setRelation("owner")
              .setGroup(gv[0])
              .setVersion(gv[1])
              .setKind(Objects.toString(o.getKind(), ""))
              .setNamespace(Objects.toString(ns, ""))
              .setName(Objects.toString(o.getName(), ""))
              .build());
    }
    switch (obj.getKind()) {
      case "Deployment" -> {
        List<ReplicaSet> sets =
            client.apps().replicaSets().inNamespace(ns).list().getItems().stream()
                .filter(r -> ownedBy(r, uid))
                .toList();
        sets.forEach(r -> related.add(link("owned", r)));
        Set<String> setUids = new LinkedHashSet<>();
        sets.forEach(r -> setUids.add(r.getMetadata().getUid()));
        client.pods().inNamespace(ns).list().getItems().stream()
            .filter(p -> setUids.stream().anyMatch(u -> ownedBy(p, u)))
            .forEach(p -> related.add(link("owned", p)));
      }
      case "ReplicaSet", "StatefulSet", "DaemonSet", "Job" ->
          client.pods().inNamespace(ns).list().getItems().stream()
              .filter(p -> ownedBy(p, uid))
              .forEach(p -> related.add(link("owned", p)));
      case "CronJob" ->
          client.batch().v1().jobs().inNamespace(ns).list().getItems().stream()
              .filter(j -> ownedBy(j, uid))
              .forEach((Job j) -> related.add(link("owned", j)));
      case "Service" -> {
        Service s = (Service) (obj instanceof Service ? obj : null);
        Map<String, String> selector =
            s == null || s.getSpec() == null ? null : s.getSpec().getSelector();
        if (selector != null && !selector.isEmpty()) {
          client
              .pods()
              .inNamespace(ns)
              .withLabels(selector)
              .list()
              .getItems()
              .forEach((Pod p) -> related.add(link("selects", p)));
        }
      }
      case "Ingress" -> {
        if (obj instanceof Ingress i && i.getSpec() != null) {
          Set<String> services = new LinkedHashSet<>();
          if (i.getSpec().getDefaultBackend() != null
              && i.getSpec().getDefaultBackend().getService() != null) {
            services.add(i.getSpec().getDefaultBackend().getService().getName());
          }
          List<IngressRule> rules =
              i.getSpec().getRules() == null ? List.of() : i.getSpec().getRules();
          for (IngressRule r : rules) {
            if (r.getHttp() != null && r.getHttp().getPaths() != null) {
              for (HTTPIngressPath p : r.getHttp().getPaths()) {
                if (p.getBackend() != null && p.getBackend().getService() != null) {
                  services.add(p.getBackend().getService().getName());
                }
              }
            }
          }
          for (String name : services) {
            Service svc = client.services().inNamespace(ns).withName(name).get();
            related.add(
                svc != null
                    ? link("routes-to", svc)
                    : RelatedResource.newBuilder()
                        .setRelation("routes-to")
                        .setVersion("v1")
                        .setKind("Service")
                        .setNamespace(ns)
                        .setName(name)
                        .setStatus("missing")
                        .setHealth("Missing")
                        .build());
          }
        }
      }
      default -> {}
    }
    related.stream().limit(MAX_RELATED).forEach(out::addRelated);
  }

  private static boolean ownedBy(HasMetadata o, String uid) {
    return o.getMetadata().getOwnerReferences() != null
        && o.getMetadata().getOwnerReferences().stream()
            .anyMatch(r -> Objects.equals(uid, r.getUid()));
  }

  private static RelatedResource link(String relation, HasMetadata o) {
    InventoryObject s = Summaries.summarize(o);
    return RelatedResource.newBuilder()
        .setRelation(relation)
        .setGroup(s.getGroup())
        .setVersion(s.getVersion())
        .setKind(s.getKind())
        .setNamespace(s.getNamespace())
        .setName(s.getName())
        .setStatus(s.getStatus())
        .setHealth(s.getHealth())
        .build();
  }

  private static String[] splitApiVersion(String apiVersion) {
    String v = Objects.toString(apiVersion, "");
    int slash = v.indexOf('/');
    return slash < 0
        ? new String[] {"", v}
        : new String[] {v.substring(0, slash), v.substring(slash + 1)};
  }

  private static Instant instant(String s) {
    if (s == null || s.isEmpty()) {
      return null;
    }
    try {
      return Instant.parse(s);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static Timestamp ts(Instant i) {
    return Timestamp.newBuilder().setSeconds(i.getEpochSecond()).setNanos(i.getNano()).build();
  }
}
