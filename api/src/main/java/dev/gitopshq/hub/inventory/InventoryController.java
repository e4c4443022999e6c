package dev.gitopshq.hub.inventory;

import com.google.protobuf.Timestamp;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.inventory.InventoryRow;
import dev.gitopshq.activities.inventory.KindCount;
import dev.gitopshq.activities.inventory.ResourceQuery;
import dev.gitopshq.activities.inventory.ResourceRow;
import dev.gitopshq.activities.render.Yaml;
import dev.gitopshq.hub.cluster.LiveAgent;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Pattern;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/clusters/{id}/inventory} and {@code /resources}: what the cluster's agent last
 * reported. It stays readable while the agent is disconnected, with {@code asOf} saying how old it
 * is.
 */
@RestController
@RequestMapping("/api/v2/clusters/{id}")
public class InventoryController {
  static final int DEFAULT_LIMIT = 100;
  static final int MAX_LIMIT = 500;
  private static final Pattern LABEL_KEY =
      Pattern.compile(
          "^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$");
  private static final Pattern KIND = Pattern.compile("^[A-Za-z][A-Za-z0-9]{0,62}$");
  private static final Pattern NAMESPACE = Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");

  private final InventoryService inventory;

  public InventoryController(InventoryService inventory) {
    this.inventory = inventory;
  }

  /** The namespaces with their counts per kind; cluster-scoped kinds separately. */
  record NamespaceCounts(String name, long total, Map<String, Long> kinds) {}

  record InventoryView(
      UUID clusterId,
      String clusterName,
      boolean connected,
      boolean reported,
      Instant asOf,
      Instant snapshotAt,
      long objects,
      Map<String, Long> clusterScoped,
      List<NamespaceCounts> namespaces) {}

  record ResourceView(
      String uid,
      String group,
      String version,
      String kind,
      String namespace,
      String name,
      String status,
      String health,
      Map<String, String> labels,
      Instant createdAt) {
    static ResourceView of(ResourceRow r) {
      return new ResourceView(
          r.uid(),
          r.apiGroup(),
          r.apiVersion(),
          r.kind(),
          r.namespace(),
          r.name(),
          r.status(),
          r.health(),
          r.labels(),
          r.createdAt());
    }
  }

  record ResourcePage(
      List<ResourceView> items, String nextCursor, Instant asOf, boolean connected) {}

  @GetMapping("/inventory")
  InventoryView inventory(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    LiveAgent.Cluster c = inventory.cluster(caller.orgId(), id);
    var summary = inventory.summary(caller.orgId(), id);
    Map<String, Long> clusterScoped = new TreeMap<>();
    Map<String, NamespaceCounts> namespaces = new LinkedHashMap<>();
    for (KindCount k : inventory.counts(caller.orgId(), id)) {
      if (k.namespace().isEmpty()) {
        clusterScoped.put(k.kind(), k.count());
      } else {
        NamespaceCounts n =
            namespaces.computeIfAbsent(
                k.namespace(), name -> new NamespaceCounts(name, 0, new TreeMap<>()));
        n.kinds().put(k.kind(), k.count());
        namespaces.put(
            k.namespace(), new NamespaceCounts(n.name(), n.total() + k.count(), n.kinds()));
      }
    }
    return new InventoryView(
        id,
        c.row().name(),
        c.connected(),
        summary.isPresent(),
        summary.map(InventoryRow::asOf).orElse(null),
        summary.map(InventoryRow::snapshotAt).orElse(null),
        summary.map(InventoryRow::objects).orElse(0),
        clusterScoped,
        new ArrayList<>(namespaces.values()));
  }

  @GetMapping("/resources")
  ResourcePage resources(
      @PathVariable UUID id,
      @RequestParam(required = false) String namespace,
      @RequestParam(required = false) String kind,
      @RequestParam(required = false) List<String> label,
      @RequestParam(required = false) String q,
      @RequestParam(required = false) Integer limit,
      @RequestParam(required = false) String cursor) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    if (namespace != null
        && !namespace.isEmpty()
        && (namespace.length() > 63 || !NAMESPACE.matcher(namespace).matches())) {
      throw ApiException.invalid("namespace", "must be a namespace name (an RFC 1123 label)");
    }
    if (kind != null && !KIND.matcher(kind).matches()) {
      throw ApiException.invalid("kind", "must be a kind such as Pod or Deployment");
    }
    Map<String, String> labels = new TreeMap<>();
    String labelKey = null;
    if (label != null) {
      if (label.size() > 10) {
        throw ApiException.invalid("label", "at most 10 label filters");
      }
      for (String l : label) {
        int eq = l.indexOf('=');
        String key = eq < 0 ? l : l.substring(0, eq);
        if (key.length() > 317 || !LABEL_KEY.matcher(key).matches()) {
          throw ApiException.invalid("label", "must be key=value or key, e.g. app=web");
        }
        if (eq < 0) {
          if (labelKey != null) {
            throw ApiException.invalid("label", "at most one label without a value");
          }
          labelKey = key;
        } else {
          String value = l.substring(eq + 1);
          if (value.length() > 63) {
            throw ApiException.invalid("label", "a label value has at most 63 characters");
          }
          labels.put(key, value);
        }
      }
    }
    if (q != null && (q.isBlank() || q.length() > 253)) {
      throw ApiException.invalid("q", "must be 1 to 253 characters of a name");
    }
    int pageSize = limit == null ? DEFAULT_LIMIT : limit;
    if (pageSize < 1 || pageSize > MAX_LIMIT) {
      throw ApiException.invalid("limit", "must be from 1 to " + MAX_LIMIT);
    }
    ResourceQuery.Cursor after = cursor == null ? null : decode(cursor);
    LiveAgent.Cluster c = inventory.cluster(caller.orgId(), id);
    List<ResourceRow> rows =
        inventory.list(
            caller.orgId(),
            id,
            new ResourceQuery(
                namespace,
                kind,
                labels,
                labelKey,
                q == null ? null : q.strip(),
                after,
                pageSize + 1));
    String next = null;
    if (rows.size() > pageSize) {
      rows = rows.subList(0, pageSize);
      ResourceRow last = rows.get(rows.size() - 1);
      next =
          encode(new ResourceQuery.Cursor(last.namespace(), last.kind(), last.name(), last.uid()));
    }
    return new ResourcePage(
        rows.stream().map(ResourceView::of).toList(),
        next,
        inventory.summary(caller.orgId(), id).map(InventoryRow::asOf).orElse(null),
        c.connected());
  }

  record Condition(
      String type, String status, String reason, String message, String lastTransitionTime) {}

  record Event(
      String type,
      String reason,
      String message,
      int count,
      Instant firstSeen,
      Instant lastSeen,
      String source) {}

  record Related(
      String relation,
      String group,
      String version,
      String kind,
      String namespace,
      String name,
      String status,
      String health) {}

  record Detail(
      String group,
      String version,
      String kind,
      String namespace,
      String name,
      String yaml,
      boolean yamlTruncated,
      Map<String, String> labels,
      Map<String, String> annotations,
      List<Condition> conditions,
      boolean eventsIncluded,
      List<Event> events,
      List<Related> related) {}

  private static final Pattern GROUP =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  private static final Pattern VERSION = Pattern.compile("^v[0-9]+((alpha|beta)[0-9]+)?$");
  private static final Pattern NAME = GROUP;

  @GetMapping("/resources/{group}/{version}/{kind}/{namespace}/{name}")
  Detail inspect(
      @PathVariable UUID id,
      @PathVariable String group,
      @PathVariable String version,
      @PathVariable String kind,
      @PathVariable String namespace,
      @PathVariable String name,
      @RequestParam(defaultValue = "false") boolean managedFields) {
    if (namespace.length() > 63 || !NAMESPACE.matcher(namespace).matches()) {
      throw ApiException.invalid("namespace", "must be a namespace name (an RFC 1123 label)");
    }
    return read(id, group, version, kind, namespace, name, managedFields);
  }

  /** A cluster-scoped object, e.g. {@code /resources/core/v1/Node/kwok-node-0}. */
  @GetMapping("/resources/{group}/{version}/{kind}/{name}")
  Detail inspectClusterScoped(
      @PathVariable UUID id,
      @PathVariable String group,
      @PathVariable String version,
      @PathVariable String kind,
      @PathVariable String name,
      @RequestParam(defaultValue = "false") boolean managedFields) {
    return read(id, group, version, kind, "", name, managedFields);
  }

  private Detail read(
      UUID id,
      String group,
      String version,
      String kind,
      String namespace,
      String name,
      boolean managedFields) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    String g = group.equals("core") ? "" : group;
    if (!g.isEmpty() && (g.length() > 253 || !GROUP.matcher(g).matches())) {
      throw ApiException.invalid("group", "must be an API group such as apps, or core");
    }
    if (!VERSION.matcher(version).matches()) {
      throw ApiException.invalid("version", "must be an API version such as v1 or v1beta1");
    }
    if (!KIND.matcher(kind).matches()) {
      throw ApiException.invalid("kind", "must be a kind such as Pod or Deployment");
    }
    if (name.length() > 253 || !NAME.matcher(name).matches()) {
      throw ApiException.invalid("name", "must be an object name (a DNS subdomain)");
    }
    InventoryService.Inspected r =
        inventory.inspect(caller, id, g, version, kind, namespace, name, managedFields);
    var d = r.detail();
    Map<String, String> labels = new TreeMap<>();
    Map<String, String> annotations = new TreeMap<>();
    List<Condition> conditions = new ArrayList<>();
    try {
      var tree = Yaml.readTree(d.getYaml());
      if (tree != null) {
        tree.path("metadata")
            .path("labels")
            .fields()
            .forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
        tree.path("metadata")
            .path("annotations")
            .fields()
            .forEachRemaining(e -> annotations.put(e.getKey(), e.getValue().asText()));
        for (var c : tree.path("status").path("conditions")) {
          conditions.add(
              new Condition(
                  c.path("type").asText(""),
                  c.path("status").asText(""),
                  c.path("reason").asText(""),
                  c.path("message").asText(""),
                  c.path("lastTransitionTime").asText(c.path("lastUpdateTime").asText(""))));
        }
      }
    } catch (RuntimeException unreadable) {
      // The YAML is still shown as the agent sent it (e.g. cut at 1 MiB).
    }
    return new Detail(
        g,
        version,
        kind,
        namespace,
        name,
        d.getYaml(),
        d.getYamlTruncated(),
        labels,
        annotations,
        conditions,
        r.eventsIncluded(),
        d.getEventsList().stream()
            .map(
                e ->
                    new Event(
                        e.getType(),
                        e.getReason(),
                        e.getMessage(),
                        e.getCount(),
                        e.hasFirstSeen() ? instant(e.getFirstSeen()) : null,
                        e.hasLastSeen() ? instant(e.getLastSeen()) : null,
                        e.getSource()))
            .toList(),
        d.getRelatedList().stream()
            .map(
                x ->
                    new Related(
                        x.getRelation(),
                        x.getGroup(),
                        x.getVersion(),
                        x.getKind(),
                        x.getNamespace(),
                        x.getName(),
                        x.getStatus(),
                        x.getHealth()))
            .toList());
  }

  private static Instant instant(Timestamp t) {
    return Instant.ofEpochSecond(t.getSeconds(), Math.max(0, Math.min(999_999_999, t.getNanos())));
  }

  record Refresh(String requestId) {}

  @PostMapping("/inventory/refresh")
  @ResponseStatus(HttpStatus.ACCEPTED)
  Refresh refresh(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    return new Refresh(inventory.refresh(caller, id));
  }

  static String encode(ResourceQuery.Cursor c) {
    String raw = String.join("\n", c.namespace(), c.kind(), c.name(), c.uid());
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(raw.getBytes(StandardCharsets.UTF_8));
  }

  static ResourceQuery.Cursor decode(String cursor) {
    try {
      if (cursor.length() > 1024) {
        throw new IllegalArgumentException();
      }
      String[] parts =
          new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8).split("\n", -1);
      if (parts.length != 4) {
        throw new IllegalArgumentException();
      }
      return new ResourceQuery.Cursor(parts[0], parts[1], parts[2], parts[3]);
    } catch (IllegalArgumentException e) {
      throw ApiException.invalid("cursor", "is not a cursor this API returned");
    }
  }
}
