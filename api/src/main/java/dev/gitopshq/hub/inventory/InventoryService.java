package dev.gitopshq.hub.inventory;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.cluster.ClusterStatus;
import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.activities.inventory.InventoryRow;
import dev.gitopshq.activities.inventory.InventoryStore;
import dev.gitopshq.activities.inventory.KindCount;
import dev.gitopshq.activities.inventory.ResourceQuery;
import dev.gitopshq.activities.inventory.ResourceRow;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.hub.cluster.ClusterService;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Reads a cluster's inventory, and asks its agent for a fresh one. */
@Service
public class InventoryService {
  private final ClusterService clusters;
  private final InventoryStore inventory;
  private final AgentGatewayPort gateway;
  private final AuditLog audit;
  private final Clock clock;

  public InventoryService(
      ClusterService clusters,
      InventoryStore inventory,
      AgentGatewayPort gateway,
      AuditLog audit,
      Clock clock) {
    this.clusters = clusters;
    this.inventory = inventory;
    this.gateway = gateway;
    this.audit = audit;
    this.clock = clock;
  }

  /** The cluster (404 for another organization's), with whether its agent is connected now. */
  public record Cluster(ClusterRow row, ClusterStatus status) {
    public boolean connected() {
      return status == ClusterStatus.Connected || status == ClusterStatus.Lagging;
    }
  }

  public Cluster cluster(UUID orgId, UUID clusterId) {
    ClusterRow row = clusters.get(orgId, clusterId);
    return new Cluster(row, ClusterStatus.of(row, clock.instant(), clusters.disconnectTimeout()));
  }

  public Optional<InventoryRow> summary(UUID orgId, UUID clusterId) {
    return inventory.find(orgId, clusterId);
  }

  public List<KindCount> counts(UUID orgId, UUID clusterId) {
    return inventory.counts(orgId, clusterId);
  }

  public List<ResourceRow> list(UUID orgId, UUID clusterId, ResourceQuery query) {
    return inventory.list(orgId, clusterId, query);
  }

  /**
   * Asks the agent for a fresh snapshot. 403 naming {@code observe} when the agent lacks it, 409
   * when it is not connected to this hub.
   */
  @Transactional
  public String refresh(HubPrincipal caller, UUID clusterId) {
    Cluster c = cluster(caller.orgId(), clusterId);
    if (!c.row().capabilities().contains(Capabilities.OBSERVE)) {
      throw ApiException.forbidden(
          "the agent of cluster "
              + c.row().name()
              + " lacks the "
              + Capabilities.OBSERVE
              + " capability");
    }
    String requestId = UUID.randomUUID().toString();
    // Audited first, in the transaction: a refresh that cannot be sent rolls its entry back.
    audit.record(
        caller.orgId(),
        caller.actor(),
        "inventory.refresh",
        "cluster",
        clusterId.toString(),
        Map.of("requestId", requestId));
    if (!gateway.requestInventory(caller.orgId(), clusterId, requestId)) {
      throw ApiException.conflict(
          "the agent of cluster "
              + c.row().name()
              + " is not connected; its last inventory stays readable");
    }
    return requestId;
  }
}
