package dev.gitopshq.activities.metrics;

import java.time.Instant;
import java.util.List;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Select;

/**
 * Instance-wide counts for the operator's metrics ({@code /actuator/prometheus}). These are the
 * only queries that read across organizations: they return counts per status, never a row, a name
 * or an organization, so nothing of one organization reaches another's users.
 */
@Mapper
public interface FleetCountsMapper {
  /** A status and how many are in it. */
  record StatusCount(String status, long count) {}

  /** The oldest waiting approval of a kind, and how many wait. */
  record Pending(String kind, long count, Instant oldest) {}

  /** Clusters by the status the cluster list shows: pending, connected or disconnected. */
  @Select(
      "select case when registered_at is null then 'pending'"
          + " when connected_replica is not null then 'connected' else 'disconnected' end as status,"
          + " count(*) as count from clusters group by 1")
  List<StatusCount> clustersByStatus();

  /** Commands and deployments waiting for approvers. */
  @Select(
      "select 'command' as kind, count(*) as count, min(created_at) as oldest from commands"
          + " where status = 'pending_approval'"
          + " union all select 'deployment', count(*), min(created_at) from deployments"
          + " where status = 'pending_approval'")
  List<Pending> pendingApprovals();
}
