package dev.gitopshq.hub.inventory;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.activities.inventory.InventoryRow;
import dev.gitopshq.activities.inventory.InventoryStore;
import dev.gitopshq.activities.inventory.KindCount;
import dev.gitopshq.activities.inventory.ResourceQuery;
import dev.gitopshq.activities.inventory.ResourceRow;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.ClusterAddresses;
import dev.gitopshq.agent.v1.ReadResource;
import dev.gitopshq.agent.v1.ResourceDetail;
import dev.gitopshq.hub.cluster.LiveAgent;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiError;
import dev.gitopshq.hub.web.ApiException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/** Reads a cluster's inventory, and asks its agent for a fresh one. */
@Service
public class InventoryService {
  private final LiveAgent live;
  private final InventoryStore inventory;
  private final AgentGatewayPort gateway;
  private final AuditLog audit;
  private final TransactionTemplate tx;

  public InventoryService(
      LiveAgent live,
      InventoryStore inventory,
      AgentGatewayPort gateway,
      AuditLog audit,
      TransactionTemplate tx) {
    this.live = live;
    this.inventory = inventory;
    this.gateway = gateway;
    this.audit = audit;
    this.tx = tx;
  }

  /** The cluster (404 for another organization's), with whether its agent is connected now. */
  public LiveAgent.Cluster cluster(UUID orgId, UUID clusterId) {
    return live.cluster(orgId, clusterId);
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

  /** One object read live through the agent, and whether events were asked for. */
  public record Inspected(ResourceDetail detail, boolean eventsIncluded) {}

  /**
   * Reads one object live through the cluster's agent. 403 naming {@code observe} when the agent
   * lacks it (or the agent's own refusal: RBAC, allowed namespaces), 404 when the object does not
   * exist, 409 when no hub replica holds the agent's stream, 504 when it does not answer in time,
   * 502 when reading failed in the cluster.
   */
  public Inspected inspect(
      HubPrincipal caller,
      UUID clusterId,
      String group,
      String version,
      String kind,
      String namespace,
      String name,
      boolean managedFields) {
    LiveAgent.Cluster c = live.cluster(caller.orgId(), clusterId);
    LiveAgent.requireCapability(c.row(), Capabilities.OBSERVE);
    boolean events = c.row().capabilities().contains(Capabilities.DIAGNOSTICS_READ);
    ReadResource request =
        ReadResource.newBuilder()
            .setRequestId(UUID.randomUUID().toString())
            .setGroup(group)
            .setVersion(version)
            .setKind(kind)
            .setNamespace(namespace)
            .setName(name)
            .setIncludeManagedFields(managedFields)
            .setIncludeEvents(events)
            .build();
    ResourceDetail detail =
        live.ask(
            c,
            "inspection reads the cluster live",
            timeout -> gateway.readResource(caller.orgId(), clusterId, request, timeout));
    return switch (detail.getOutcome()) {
      case FOUND -> new Inspected(detail, events);
      case NOT_FOUND ->
          throw new ApiException(new ApiError(404, "not_found", detail.getError(), null));
      case FORBIDDEN -> throw ApiException.forbidden(detail.getError());
      default ->
          throw new ApiException(
              new ApiError(
                  502,
                  "agent_error",
                  detail.getError().isEmpty()
                      ? "the agent could not read it"
                      : ClusterAddresses.redact(detail.getError()),
                  null));
    };
  }

  /**
   * Asks the agent for a fresh snapshot. 403 naming {@code observe} when the agent lacks it, 409
   * when no hub replica holds its stream (whichever does sends the request).
   */
  public String refresh(HubPrincipal caller, UUID clusterId) {
    LiveAgent.Cluster c = live.cluster(caller.orgId(), clusterId);
    LiveAgent.requireCapability(c.row(), Capabilities.OBSERVE);
    String requestId = UUID.randomUUID().toString();
    // Sent outside any transaction: when the agent is coming back to another replica the send
    // waits for it (GITOPSHQ_LIVE_RECONNECT_WAIT), and must not hold a database connection while
    // it does. Audited once sent; a refresh only asks the agent for what it reports anyway.
    if (!gateway.requestInventory(caller.orgId(), clusterId, requestId)) {
      throw ApiException.conflict(
          "the agent of cluster "
              + c.row().name()
              + " is not connected to any hub replica; its last inventory stays readable");
    }
    tx.executeWithoutResult(
        t ->
            audit.record(
                caller.orgId(),
                caller.actor(),
                "inventory.refresh",
                "cluster",
                clusterId.toString(),
                Map.of("requestId", requestId)));
    return requestId;
  }
}
