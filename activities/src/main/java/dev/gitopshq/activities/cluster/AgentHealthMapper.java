package dev.gitopshq.activities.cluster;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/**
 * Agent health: connection sessions (for uptime) and what the agent reports with its heartbeats.
 * Every statement filters by org_id.
 */
@Mapper
public interface AgentHealthMapper {
  @Insert(
      "insert into agent_sessions (org_id, cluster_id, id, replica, connected_at)"
          + " values (#{orgId}, #{clusterId}, #{id}, #{replica}, #{at})")
  void openSession(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("id") UUID id,
      @Param("replica") String replica,
      @Param("at") Instant at);

  @Update(
      "update agent_sessions set disconnected_at = #{at}"
          + " where org_id = #{orgId} and id = #{id} and disconnected_at is null")
  int closeSession(@Param("orgId") UUID orgId, @Param("id") UUID id, @Param("at") Instant at);

  /** Connected time per cluster. */
  record Connected(UUID clusterId, double seconds) {}

  /**
   * Seconds each cluster of the organization (or only {@code clusterId}, when given) was connected
   * between {@code from} and {@code to}: the union of its sessions (overlapping streams count
   * once). A session that was never closed (its replica died) counts up to the cluster's last
   * heartbeat.
   */
  @Select({
    "<script>",
    "select x.cluster_id, coalesce(sum(extract(epoch from upper(r) - lower(r))), 0) as seconds",
    " from (select s.cluster_id,",
    "   range_agg(tstzrange(greatest(s.connected_at, #{from}),",
    "     greatest(greatest(s.connected_at, #{from}),",
    "       least(coalesce(s.disconnected_at, c.last_seen_at, s.connected_at), #{to})))) as m",
    "   from agent_sessions s join clusters c on c.org_id = s.org_id and c.id = s.cluster_id",
    "   where s.org_id = #{orgId}",
    "   <if test='clusterId != null'> and s.cluster_id = #{clusterId}</if>",
    "   and s.connected_at &lt; #{to}",
    "   and coalesce(s.disconnected_at, c.last_seen_at, s.connected_at) &gt; #{from}",
    "   group by s.cluster_id) x, unnest(x.m) r",
    " group by x.cluster_id",
    "</script>"
  })
  List<Connected> connected(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("from") Instant from,
      @Param("to") Instant to);

  /** What the agent last reported: its status as JSON, and the heartbeat round trip. */
  record Reported(UUID clusterId, String agentStatus, Integer heartbeatRttMillis) {}

  /** The organization's clusters (or only {@code clusterId}, when given) that reported. */
  @Select({
    "<script>",
    "select id as cluster_id, agent_status::text as agent_status, heartbeat_rtt_millis",
    " from clusters where org_id = #{orgId} and agent_status is not null",
    " <if test='clusterId != null'> and id = #{clusterId}</if>",
    "</script>"
  })
  List<Reported> reported(@Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);
}
