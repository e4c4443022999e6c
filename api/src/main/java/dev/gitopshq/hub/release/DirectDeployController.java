package dev.gitopshq.hub.release;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.release.DirectApplySummaryRow;
import dev.gitopshq.activities.release.DirectClusterObjectRow;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.hub.cluster.LiveAgent;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** A cluster's direct deploys (its Direct deploy tab): the latest applies and what they placed. */
@RestController
public class DirectDeployController {
  private final DirectDeployQueries queries;
  private final LiveAgent live;

  public DirectDeployController(DirectDeployQueries queries, LiveAgent live) {
    this.queries = queries;
    this.live = live;
  }

  record ApplyView(
      String id,
      String deploymentId,
      String projectId,
      String project,
      String environment,
      String commit,
      String status,
      String error,
      int objects,
      int applied,
      int pruned,
      int failed,
      Instant createdAt,
      Instant finishedAt) {}

  record ObjectView(
      String projectId,
      String project,
      String environment,
      String tenant,
      String apiVersion,
      String kind,
      String namespace,
      String name,
      Instant appliedAt) {}

  /**
   * @param capability whether the cluster's agent announced direct.deploy
   * @param objectsTruncated more objects than the answer lists
   */
  record DirectDeploys(
      boolean capability,
      List<ApplyView> applies,
      List<ObjectView> objects,
      boolean objectsTruncated) {}

  @GetMapping("/api/v2/clusters/{clusterId}/direct-deploys")
  DirectDeploys directDeploys(@PathVariable UUID clusterId) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    LiveAgent.Cluster c = live.cluster(caller.orgId(), clusterId);
    List<DirectClusterObjectRow> objects = queries.objects(caller.orgId(), clusterId);
    boolean truncated = objects.size() > DirectDeployQueries.MAX_OBJECTS;
    return new DirectDeploys(
        c.row().capabilities() != null
            && c.row().capabilities().contains(Capabilities.DIRECT_DEPLOY),
        queries.recent(caller.orgId(), clusterId).stream()
            .map(DirectDeployController::view)
            .toList(),
        objects.stream()
            .limit(DirectDeployQueries.MAX_OBJECTS)
            .map(DirectDeployController::view)
            .toList(),
        truncated);
  }

  static ApplyView view(DirectApplySummaryRow a) {
    return new ApplyView(
        a.id(),
        a.deploymentId().toString(),
        a.projectId().toString(),
        a.project(),
        a.environment(),
        a.commit(),
        a.status(),
        a.error(),
        a.objects(),
        a.applied(),
        a.pruned(),
        a.failed(),
        a.createdAt(),
        a.finishedAt());
  }

  static ObjectView view(DirectClusterObjectRow o) {
    return new ObjectView(
        o.projectId().toString(),
        o.project(),
        o.environment(),
        o.tenant(),
        o.apiVersion(),
        o.kind(),
        o.namespace(),
        o.name(),
        o.appliedAt());
  }
}
