package dev.gitopshq.hub.adapter;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.adapter.AdapterWiringMapper;
import dev.gitopshq.activities.adapter.AdapterWiringRow;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.hub.cluster.ClusterService;
import dev.gitopshq.hub.security.HubPrincipal;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A cluster's runtime adapter setting ({@code auto} or {@code manual}) and what its agent reported
 * for each binding the hub wired; changing the setting is audited and wires the cluster again.
 */
@Service
public class AdapterService {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ClusterService clusters;
  private final AdapterWiringMapper wirings;
  private final AdapterWiringStarter starter;
  private final AuditLog audit;

  public AdapterService(
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
  public record WiredObject(String apiVersion, String kind, String namespace, String name) {}

  /**
   * One binding the hub wired on the cluster.
   *
   * @param outcome wired, failed (message says why) or pending (not sent: message says why)
   */
  public record Wiring(
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
  public record Adapters(String adapter, List<Wiring> bindings) {}

  /** The cluster's setting and wirings; 404 for another organization's cluster. */
  @Transactional(readOnly = true)
  public Adapters get(UUID orgId, UUID clusterId) {
    clusters.get(orgId, clusterId);
    return view(orgId, clusterId);
  }

  /** Sets {@code auto} or {@code manual} (validated by the caller); audited when it changes. */
  @Transactional
  public Adapters set(HubPrincipal caller, UUID clusterId, String mode) {
    var cluster = clusters.get(caller.orgId(), clusterId);
    String before = wirings.adapterMode(caller.orgId(), clusterId).orElse("auto");
    if (!before.equals(mode)) {
      wirings.setAdapterMode(caller.orgId(), clusterId, mode);
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("cluster", cluster.name());
      details.put("adapter", Map.of("from", before, "to", mode));
      audit.record(
          caller.orgId(),
          caller.actor(),
          "cluster.adapter_changed",
          "cluster",
          clusterId.toString(),
          details);
      starter.rewire(
          caller.orgId(), clusterId, "adapter set to " + mode + " by " + caller.actor().name());
    }
    return view(caller.orgId(), clusterId);
  }

  /** Starts the cluster's wiring now. */
  @Transactional(readOnly = true)
  public void rewire(HubPrincipal caller, UUID clusterId) {
    clusters.get(caller.orgId(), clusterId);
    starter.rewire(caller.orgId(), clusterId, "asked by " + caller.actor().name());
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
