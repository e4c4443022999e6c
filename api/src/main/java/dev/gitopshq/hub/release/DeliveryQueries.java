package dev.gitopshq.hub.release;

import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.release.ClusterBindingRow;
import dev.gitopshq.activities.release.DeliveryMapper;
import dev.gitopshq.activities.release.DeliveryRow;
import dev.gitopshq.hub.web.ApiException;
import java.util.List;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** What was generated and deployed where, read for the API; another organization's is a 404. */
@Service
public class DeliveryQueries {
  private final DeliveryMapper deliveries;
  private final ReleaseService releases;
  private final ClusterMapper clusters;

  public DeliveryQueries(
      DeliveryMapper deliveries, ReleaseService releases, ClusterMapper clusters) {
    this.deliveries = deliveries;
    this.releases = releases;
    this.clusters = clusters;
  }

  /** A project's deliveries, one per environment and tenant. */
  @Transactional(readOnly = true)
  public List<DeliveryRow> forProject(UUID orgId, UUID projectId) {
    releases.project(orgId, projectId);
    return deliveries.list(orgId, projectId);
  }

  /** The deliveries whose targets include a cluster. */
  @Transactional(readOnly = true)
  public List<ClusterBindingRow> forCluster(UUID orgId, UUID clusterId) {
    if (clusters.findById(orgId, clusterId).isEmpty()) {
      throw ApiException.notFound("cluster " + clusterId);
    }
    return deliveries.forCluster(orgId, clusterId);
  }
}
