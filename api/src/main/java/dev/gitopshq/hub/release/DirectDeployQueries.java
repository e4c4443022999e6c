package dev.gitopshq.hub.release;

import dev.gitopshq.activities.release.DirectApplyMapper;
import dev.gitopshq.activities.release.DirectApplySummaryRow;
import dev.gitopshq.activities.release.DirectClusterObjectRow;
import java.util.List;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** What direct deploys did on a cluster, read for its Direct deploy tab. */
@Service
public class DirectDeployQueries {
  /** The most applies and objects one answer lists. */
  static final int MAX_APPLIES = 50;

  static final int MAX_OBJECTS = 1_000;

  private final DirectApplyMapper applies;

  public DirectDeployQueries(DirectApplyMapper applies) {
    this.applies = applies;
  }

  /** The cluster's latest applies, newest first. */
  @Transactional(readOnly = true)
  public List<DirectApplySummaryRow> recent(UUID orgId, UUID clusterId) {
    return applies.recent(orgId, clusterId, MAX_APPLIES);
  }

  /** What direct applies placed on the cluster (what the next apply may prune). */
  @Transactional(readOnly = true)
  public List<DirectClusterObjectRow> objects(UUID orgId, UUID clusterId) {
    return applies.clusterObjects(orgId, clusterId, MAX_OBJECTS + 1);
  }
}
