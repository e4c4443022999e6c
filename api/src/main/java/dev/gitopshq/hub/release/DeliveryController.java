package dev.gitopshq.hub.release;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.release.ClusterBindingRow;
import dev.gitopshq.activities.release.DeliveryRow;
import dev.gitopshq.hub.cluster.LiveAgent;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * What each tenant-environment last had generated and deployed: per project, and per cluster (the
 * cluster's Bindings tab).
 */
@RestController
public class DeliveryController {
  private final DeliveryQueries deliveries;
  private final BindingSync sync;
  private final LiveAgent live;

  public DeliveryController(DeliveryQueries deliveries, BindingSync sync, LiveAgent live) {
    this.deliveries = deliveries;
    this.sync = sync;
    this.live = live;
  }

  record DeliveryView(
      String environment,
      String tenant,
      String generatedCommit,
      Instant generatedAt,
      String deployedCommit,
      Integer deployedRelease,
      Instant deployedAt) {}

  record Deliveries(List<DeliveryView> items) {}

  record LastDelivery(String commit, Integer release, Instant at) {}

  record BindingView(
      String projectId,
      String project,
      String tenant,
      String environment,
      LastDelivery lastDelivery,
      String syncStatus,
      String application,
      String syncedRevision,
      Boolean atLastDeployment,
      String syncReason) {}

  record Bindings(List<BindingView> items) {}

  @GetMapping("/api/v2/projects/{projectId}/deliveries")
  Deliveries deliveries(@PathVariable UUID projectId) {
    HubPrincipal caller = Authz.require(Permission.RELEASES_READ);
    return new Deliveries(
        deliveries.forProject(caller.orgId(), projectId).stream()
            .map(DeliveryController::view)
            .toList());
  }

  @GetMapping("/api/v2/clusters/{clusterId}/bindings")
  Bindings bindings(@PathVariable UUID clusterId) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    LiveAgent.Cluster c = live.cluster(caller.orgId(), clusterId);
    String cluster = c.row().name();
    List<ClusterBindingRow> rows = deliveries.forCluster(caller.orgId(), clusterId);
    BindingSync.Applications apps =
        BindingSync.allDirect(rows)
            ? new BindingSync.Applications(List.of(), null)
            : sync.applications(c);
    return new Bindings(
        rows.stream().map(b -> view(b, sync.state(caller.orgId(), cluster, b, apps))).toList());
  }

  static DeliveryView view(DeliveryRow d) {
    return new DeliveryView(
        d.environment(),
        d.tenant(),
        d.generatedCommit(),
        d.generatedAt(),
        d.deployedCommit(),
        d.deployedReleaseNumber(),
        d.deployedAt());
  }

  static BindingView view(ClusterBindingRow b, BindingSync.State s) {
    return new BindingView(
        b.projectId().toString(),
        b.project(),
        b.tenant(),
        b.environment(),
        b.deployedCommit() == null
            ? null
            : new LastDelivery(b.deployedCommit(), b.deployedReleaseNumber(), b.deployedAt()),
        s.status(),
        s.application(),
        s.syncedRevision(),
        s.atLastDeployment(),
        s.reason());
  }
}
