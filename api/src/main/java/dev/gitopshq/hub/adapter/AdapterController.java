package dev.gitopshq.hub.adapter;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.adapter.AdapterWiringMapper;
import dev.gitopshq.activities.adapter.AdapterWiringRow;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.cluster.ClusterService;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/clusters/{id}/adapters}: whether the hub keeps the cluster's runtime adapter
 * objects ({@code auto}) or leaves them to its operators ({@code manual}), and what the agent
 * reported for each binding it wired.
 */
@RestController
@RequestMapping("/api/v2/clusters/{id}/adapters")
public class AdapterController {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ClusterService clusters;
  private final AdapterWiringMapper wirings;
  private final AdapterWiringStarter starter;
  private final AuditLog audit;

  public AdapterController(
      ClusterService clusters,
      AdapterWiringMapper wirings,
      AdapterWiringStarter starter,
      AuditLog audit) {
    this.clusters = clusters;
    this.wirings = wirings;
    this.starter = starter;
    this.audit = audit;
  }

  /** One adapter object the agent made for a binding. */
  record WiredObject(String apiVersion, String kind, String namespace, String name) {}

  /**
   * One binding the hub wired on the cluster.
   *
   * @param outcome wired, failed (message says why) or pending (not sent: message says why)
   */
  record Wiring(
      String project,
      String environment,
      String tenant,
      String adapter,
      String outcome,
      String message,
      List<WiredObject> objects,
      Instant updatedAt) {}

  /**
   * @param adapter auto (the hub keeps the adapter objects) or manual
   */
  record Adapters(String adapter, List<Wiring> bindings) {}

  /** The body of PUT: {@code {"adapter": "auto" | "manual"}}. */
  record AdapterPut(String adapter) {}

  @GetMapping
  @Transactional(readOnly = true)
  public Adapters get(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    clusters.get(caller.orgId(), id);
    return view(caller.orgId(), id);
  }

  @PutMapping
  @Transactional
  public Adapters put(@PathVariable UUID id, @RequestBody AdapterPut body) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    if (!"auto".equals(body.adapter()) && !"manual".equals(body.adapter())) {
      throw ApiException.invalid("adapter", "must be auto or manual");
    }
    var cluster = clusters.get(caller.orgId(), id);
    String before = wirings.adapterMode(caller.orgId(), id).orElse("auto");
    if (!before.equals(body.adapter())) {
      wirings.setAdapterMode(caller.orgId(), id, body.adapter());
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("cluster", cluster.name());
      details.put("adapter", Map.of("from", before, "to", body.adapter()));
      audit.record(
          caller.orgId(),
          caller.actor(),
          "cluster.adapter_changed",
          "cluster",
          id.toString(),
          details);
      starter.rewire(
          caller.orgId(), id, "adapter set to " + body.adapter() + " by " + caller.actor().name());
    }
    return view(caller.orgId(), id);
  }

  /** Wires the cluster again now (e.g. after someone deleted an adapter object by hand). */
  @PostMapping("/rewire")
  @ResponseStatus(HttpStatus.ACCEPTED)
  public Map<String, String> rewire(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_WRITE);
    clusters.get(caller.orgId(), id);
    starter.rewire(caller.orgId(), id, "asked by " + caller.actor().name());
    return Map.of("status", "started");
  }

  private Adapters view(UUID orgId, UUID id) {
    List<Wiring> out =
        wirings.wirings(orgId, id).stream()
            .map(
                (AdapterWiringRow r) ->
                    new Wiring(
                        r.project(),
                        r.environment(),
                        r.tenant(),
                        r.adapter(),
                        r.outcome(),
                        r.message(),
                        objects(r.objects()),
                        r.updatedAt()))
            .toList();
    return new Adapters(wirings.adapterMode(orgId, id).orElse("auto"), out);
  }

  private static List<WiredObject> objects(String json) {
    try {
      return JSON.readValue(json, new TypeReference<List<WiredObject>>() {});
    } catch (IOException e) {
      return List.of();
    }
  }
}
