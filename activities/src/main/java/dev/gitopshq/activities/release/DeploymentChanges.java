package dev.gitopshq.activities.release;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeDiff;
import dev.gitopshq.activities.render.Yaml;
import dev.gitopshq.agent.v1.KindScopes;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;

/**
 * What a deployment would change on its deploy branches, object by object: the {@code changes} of
 * the {@code gitopshq.release} input (docs/policies.md describes it). Each environment's tree as
 * the branch holds it now is compared with the tree the deployment would write ({@link
 * DeployWriter.Planned}); every differing {@code .yaml}, {@code .yml} or {@code .json} file is read
 * as Kubernetes objects on both sides and its objects matched by group, kind, namespace and name.
 * An object that moves to another file counts as removed there and added here.
 *
 * <p>Bounded: one file of at most {@link #MAX_FILE_BYTES} is in memory at a time, at most {@code
 * maxListed} objects (and as many image changes and unreadable files) are listed, and the totals
 * stay exact with {@code truncated} set when anything was left out of the lists.
 */
public final class DeploymentChanges {
  /** How many objects, image changes and unreadable files the input lists at most (each). */
  public static final int MAX_LISTED = 500;

  /** A manifest file larger than this is not read: it counts as unreadable. */
  public static final long MAX_FILE_BYTES = 4L * 1024 * 1024;

  /** The API group of Role, ClusterRole, RoleBinding and ClusterRoleBinding. */
  static final String RBAC_GROUP = "rbac.authorization.k8s.io";

  /** Kinds whose pod template (or pod spec) names container images. */
  static final Set<String> WORKLOADS =
      Set.of(
          "Deployment",
          "StatefulSet",
          "DaemonSet",
          "ReplicaSet",
          "ReplicationController",
          "Job",
          "CronJob",
          "Pod");

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ProjectRepos repos;
  private final int maxListed;

  public DeploymentChanges(ProjectRepos repos) {
    this(repos, MAX_LISTED);
  }

  DeploymentChanges(ProjectRepos repos, int maxListed) {
    this.repos = repos;
    this.maxListed = maxListed;
  }

  /** The changes document for the planned writes, one environment each, in the order given. */
  public ObjectNode compute(UUID orgId, UUID projectId, List<DeployWriter.Planned> plans) {
    Collector c = new Collector();
    try (TreeDiff diff = TreeDiff.open(repos, orgId, projectId)) {
      for (DeployWriter.Planned plan : plans) {
        c.environment(plan.environment());
        diff.walk(plan.before(), plan.after(), plan.writes(), f -> c.file(diff, f));
      }
    }
    return c.document();
  }

  /** The summary part of a changes document, with its {@code truncated} flag: what is stored. */
  public static ObjectNode summary(ObjectNode changes) {
    ObjectNode s = changes.get("summary").deepCopy();
    s.put("truncated", changes.get("truncated").asBoolean());
    return s;
  }

  /** One Kubernetes object as read from a manifest file. */
  record K8sObject(
      String group, String version, String kind, String namespace, String name, Object body) {
    String key() {
      return group + "\n" + kind + "\n" + namespace + "\n" + name;
    }

    /**
     * Built-in kinds by their API group; any other kind by its namespace, which generation writes
     * on every namespaced object.
     */
    boolean clusterScoped() {
      return KindScopes.namespaced(group.isEmpty() ? version : group + "/" + version, kind)
          .map(namespaced -> !namespaced)
          .orElse(namespace == null || namespace.isEmpty());
    }

    boolean rbac() {
      return RBAC_GROUP.equals(group);
    }

    static K8sObject of(Object doc) {
      if (!(doc instanceof Map<?, ?> m)) {
        return null;
      }
      String apiVersion = text(m.get("apiVersion"));
      String kind = text(m.get("kind"));
      if (kind.isEmpty()) {
        return null;
      }
      Map<?, ?> meta = m.get("metadata") instanceof Map<?, ?> x ? x : Map.of();
      int slash = apiVersion.lastIndexOf('/');
      return new K8sObject(
          slash < 0 ? "" : apiVersion.substring(0, slash),
          apiVersion.substring(slash + 1),
          kind,
          text(meta.get("namespace")),
          text(meta.get("name")),
          doc);
    }

    /** Container name to image, init containers included, for workload kinds; else empty. */
    Map<String, String> images() {
      Map<String, String> out = new LinkedHashMap<>();
      if (!WORKLOADS.contains(kind)) {
        return out;
      }
      Object spec = at(body, "spec");
      Object pod =
          switch (kind) {
            case "Pod" -> spec;
            case "CronJob" -> at(spec, "jobTemplate", "spec", "template", "spec");
            default -> at(spec, "template", "spec");
          };
      for (String list : List.of("initContainers", "containers")) {
        if (at(pod, list) instanceof List<?> containers) {
          for (Object container : containers) {
            String name = text(at(container, "name"));
            out.put(name, text(at(container, "image")));
          }
        }
      }
      return out;
    }

    private static Object at(Object node, String... path) {
      Object n = node;
      for (String p : path) {
        if (!(n instanceof Map<?, ?> m)) {
          return null;
        }
        n = m.get(p);
      }
      return n;
    }

    private static String text(Object o) {
      return o == null ? "" : o.toString();
    }
  }

  /** Totals, lists and the per-cluster nodes as the walk meets them. */
  private final class Collector {
    long added;
    long changed;
    long removed;
    long clusterScoped;
    long rbac;
    long sensitive;
    long imageChanges;
    long unreadable;
    int listedObjects;
    int listedUnreadable;
    boolean truncated;
    final ArrayNode environments = JSON.createArrayNode();
    final ArrayNode images = JSON.createArrayNode();
    String environment;
    ArrayNode clusters;
    ObjectNode cluster;

    void environment(String name) {
      environment = name;
      ObjectNode e = environments.addObject();
      e.put("name", name);
      clusters = e.putArray("clusters");
      cluster = null;
    }

    void file(TreeDiff diff, TreeDiff.FileChange f) {
      String lower = f.path().toLowerCase(Locale.ROOT);
      if (!(lower.endsWith(".yaml") || lower.endsWith(".yml") || lower.endsWith(".json"))) {
        return;
      }
      int slash = f.path().indexOf('/');
      String clusterName = slash < 0 ? "" : f.path().substring(0, slash);
      List<K8sObject> before = f.before() == null ? List.of() : objects(diff, f.before());
      List<K8sObject> after = f.after() == null ? List.of() : objects(diff, f.after());
      if (before == null || after == null) {
        unreadable(clusterName, f.path());
        return;
      }
      Map<String, K8sObject> old = new LinkedHashMap<>();
      before.forEach(o -> old.put(o.key(), o));
      for (K8sObject o : after) {
        K8sObject was = old.remove(o.key());
        if (was == null) {
          object(clusterName, "added", o);
          images(clusterName, o, Map.of(), o.images());
        } else if (!Objects.equals(was.body(), o.body())) {
          object(clusterName, "changed", o);
          images(clusterName, o, was.images(), o.images());
        }
      }
      for (K8sObject o : old.values()) {
        object(clusterName, "removed", o);
        images(clusterName, o, o.images(), Map.of());
      }
    }

    /** The file's objects; null when it cannot be read as Kubernetes objects. */
    private List<K8sObject> objects(TreeDiff diff, ObjectId blob) {
      TreeDiff.Content content = diff.read(blob, MAX_FILE_BYTES);
      if (content.tooLarge()) {
        return null;
      }
      List<Object> docs;
      try {
        docs = Yaml.readAll(new String(content.bytes(), StandardCharsets.UTF_8));
      } catch (JsonProcessingException | RuntimeException e) {
        return null;
      }
      List<K8sObject> out = new ArrayList<>();
      for (Object doc : docs) {
        // A List (v1 List, or any *List with items) is applied item by item, as kubectl and the
        // runtime adapters do: its items are the objects.
        List<?> items =
            doc instanceof Map<?, ?> m
                    && String.valueOf(m.get("kind")).endsWith("List")
                    && m.get("items") instanceof List<?> l
                ? l
                : List.of(doc);
        for (Object item : items) {
          K8sObject o = K8sObject.of(item);
          if (o == null) {
            return null;
          }
          out.add(o);
        }
      }
      return out;
    }

    private ObjectNode cluster(String name) {
      if (cluster == null || !cluster.get("name").asText().equals(name)) {
        cluster = clusters.addObject();
        cluster.put("name", name);
        ObjectNode counts = cluster.putObject("counts");
        for (String k : List.of("added", "changed", "removed", "unreadable")) {
          counts.put(k, 0);
          cluster.putArray(k);
        }
      }
      return cluster;
    }

    private void object(String clusterName, String how, K8sObject o) {
      switch (how) {
        case "added" -> added++;
        case "changed" -> changed++;
        default -> removed++;
      }
      clusterScoped += o.clusterScoped() ? 1 : 0;
      rbac += o.rbac() ? 1 : 0;
      sensitive += o.clusterScoped() || o.rbac() ? 1 : 0;
      ObjectNode c = cluster(clusterName);
      ObjectNode counts = (ObjectNode) c.get("counts");
      counts.put(how, counts.get(how).asLong() + 1);
      if (listedObjects >= maxListed) {
        truncated = true;
        return;
      }
      listedObjects++;
      ObjectNode n = ((ArrayNode) c.get(how)).addObject();
      n.put("group", o.group());
      n.put("version", o.version());
      n.put("kind", o.kind());
      n.put("namespace", o.namespace());
      n.put("name", o.name());
      n.put("cluster_scoped", o.clusterScoped());
      n.put("rbac", o.rbac());
    }

    private void images(
        String clusterName, K8sObject o, Map<String, String> from, Map<String, String> to) {
      Set<String> names = new LinkedHashSet<>(from.keySet());
      names.addAll(to.keySet());
      for (String container : names) {
        String a = from.getOrDefault(container, "");
        String b = to.getOrDefault(container, "");
        if (a.equals(b)) {
          continue;
        }
        imageChanges++;
        if (images.size() >= maxListed) {
          truncated = true;
          continue;
        }
        ObjectNode n = images.addObject();
        n.put("environment", environment);
        n.put("cluster", clusterName);
        n.put("namespace", o.namespace());
        n.put("kind", o.kind());
        n.put("name", o.name());
        n.put("container", container);
        n.put("from", a);
        n.put("to", b);
      }
    }

    private void unreadable(String clusterName, String path) {
      unreadable++;
      ObjectNode c = cluster(clusterName);
      ObjectNode counts = (ObjectNode) c.get("counts");
      counts.put("unreadable", counts.get("unreadable").asLong() + 1);
      if (listedUnreadable >= maxListed) {
        truncated = true;
        return;
      }
      listedUnreadable++;
      ((ArrayNode) c.get("unreadable")).add(path);
    }

    ObjectNode document() {
      ObjectNode doc = JSON.createObjectNode();
      ObjectNode s = doc.putObject("summary");
      s.put("added", added);
      s.put("changed", changed);
      s.put("removed", removed);
      s.put("cluster_scoped", clusterScoped);
      s.put("rbac", rbac);
      s.put("sensitive", sensitive);
      s.put("images", imageChanges);
      s.put("unreadable", unreadable);
      doc.set("environments", environments);
      doc.set("images", images);
      doc.put("truncated", truncated);
      return doc;
    }
  }
}
