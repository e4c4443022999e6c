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
import dev.gitopshq.agent.v1.ReadResource;
import dev.gitopshq.agent.v1.ResourceDetail;
import dev.gitopshq.hub.cluster.ClusterService;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiError;
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

  /** How long a live read waits for the agent. */
  static final java.time.Duration LIVE_READ_TIMEOUT = java.time.Duration.ofSeconds(10);

  /** One object read live through the agent, and whether events were asked for. */
  public record Inspected(ResourceDetail detail, boolean eventsIncluded) {}

  /**
   * Reads one object live through the cluster's agent. 403 naming {@code observe} when the agent
   * lacks it (or the agent's own refusal: RBAC, allowed namespaces), 404 when the object does not
   * exist, 409 when the agent is not connected, 504 when it does not answer in time, 502 when
   * reading failed in the cluster.
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
    Cluster c = cluster(caller.orgId(), clusterId);
    List<String> caps = c.row().capabilities();
    if (!caps.contains(Capabilities.OBSERVE)) {
      throw ApiException.forbidden(
          "the agent of cluster "
              + c.row().name()
              + " lacks the "
              + Capabilities.OBSERVE
              + " capability");
    }
    boolean events = caps.contains(Capabilities.DIAGNOSTICS_READ);
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
    java.util.concurrent.CompletableFuture<ResourceDetail> answer;
    try {
      answer =
          gateway
              .readResource(caller.orgId(), clusterId, request, LIVE_READ_TIMEOUT)
              .orElseThrow(
                  () ->
                      ApiException.conflict(
                          "the agent of cluster "
                              + c.row().name()
                              + " is not connected; inspection reads the cluster live"));
    } catch (IllegalStateException busy) {
      throw new ApiException(new ApiError(503, "unavailable", busy.getMessage(), null));
    }
    ResourceDetail detail;
    try {
      detail = answer.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(new ApiError(503, "unavailable", "interrupted", null));
    } catch (java.util.concurrent.ExecutionException
        | java.util.concurrent.CancellationException e) {
      throw new ApiException(
          new ApiError(
              504,
              "agent_timeout",
              "the agent of cluster "
                  + c.row().name()
                  + " did not answer within "
                  + LIVE_READ_TIMEOUT.toSeconds()
                  + " s",
              null));
    }
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
                  detail.getError().isEmpty() ? "the agent could not read it" : detail.getError(),
                  null));
    };
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
