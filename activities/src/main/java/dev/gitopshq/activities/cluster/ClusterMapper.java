package dev.gitopshq.activities.cluster;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** Clusters of an organization. */
@Mapper
public interface ClusterMapper {
  String COLUMNS =
      "c.id, c.org_id, c.name, c.display_name, c.provider, c.region, c.environment, c.labels,"
          + " c.agent_version, c.capabilities, c.heartbeat_interval_seconds, c.registered_at,"
          + " c.connected_at, c.connected_replica, c.last_seen_at, c.created_by, c.created_at,"
          + " c.updated_at,"
          + " exists (select 1 from cluster_tokens t where t.org_id = c.org_id"
          + " and t.cluster_id = c.id and t.kind = 'registration' and t.status = 'active'"
          + " and t.expires_at > now()) as registration_open,"
          + " c.acceptance, c.api_server_sha256, c.node_count, c.kubernetes_version,"
          + " c.identity_reported_at, c.reported_labels";

  @Insert(
      "insert into clusters (id, org_id, name, display_name, provider, region, environment,"
          + " labels, created_by, created_at, updated_at)"
          + " values (#{id}, #{orgId}, #{name}, #{displayName}, #{provider}, #{region},"
          + " #{environment}, #{labels,typeHandler=dev.gitopshq.activities.store.JsonMapTypeHandler}, #{createdBy}, #{createdAt}, #{updatedAt})")
  void insert(ClusterRow cluster);

  @Select("select " + COLUMNS + " from clusters c where c.org_id = #{orgId} and c.id = #{id}")
  Optional<ClusterRow> findById(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Select("select " + COLUMNS + " from clusters c where c.org_id = #{orgId} and c.name = #{name}")
  Optional<ClusterRow> findByName(@Param("orgId") UUID orgId, @Param("name") String name);

  /** Clusters whose labels contain every pair in {@code labels} (empty: all clusters). */
  @Select(
      "select "
          + COLUMNS
          + " from clusters c where c.org_id = #{orgId} and (c.reported_labels || c.labels) @> #{labels,typeHandler=dev.gitopshq.activities.store.JsonMapTypeHandler}"
          + " order by c.name")
  List<ClusterRow> list(@Param("orgId") UUID orgId, @Param("labels") Map<String, String> labels);

  @Update(
      "update clusters set display_name = #{displayName}, labels = #{labels,typeHandler=dev.gitopshq.activities.store.JsonMapTypeHandler},"
          + " updated_at = #{now} where org_id = #{orgId} and id = #{id}")
  int updateMetadata(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("displayName") String displayName,
      @Param("labels") Map<String, String> labels,
      @Param("now") Instant now);

  @Update(
      "update clusters set registered_at = #{now}, agent_version = #{agentVersion},"
          + " capabilities = #{capabilities,typeHandler=dev.gitopshq.activities.store.StringListTypeHandler}, updated_at = #{now}"
          + " where org_id = #{orgId} and id = #{id}")
  int markRegistered(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("agentVersion") String agentVersion,
      @Param("capabilities") List<String> capabilities,
      @Param("now") Instant now);

  @Update(
      "update clusters set connected_replica = #{replica}, connected_at = #{now},"
          + " last_seen_at = #{now}, agent_version = #{agentVersion},"
          + " capabilities = #{capabilities,typeHandler=dev.gitopshq.activities.store.StringListTypeHandler}, heartbeat_interval_seconds = #{interval},"
          + " updated_at = #{now} where org_id = #{orgId} and id = #{id}")
  int markConnected(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("replica") String replica,
      @Param("agentVersion") String agentVersion,
      @Param("capabilities") List<String> capabilities,
      @Param("interval") int heartbeatIntervalSeconds,
      @Param("now") Instant now);

  /**
   * Records what the agent reported about its cluster (hub acceptance shows it to the admin who
   * decides). Called on Register and on every Hello that carries an identity.
   */
  @Update(
      "update clusters set api_server_sha256 = #{apiServerSha256}, node_count = #{nodeCount},"
          + " kubernetes_version = #{kubernetesVersion}, identity_reported_at = #{now}"
          + " where org_id = #{orgId} and id = #{id}")
  int reportIdentity(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("apiServerSha256") String apiServerSha256,
      @Param("nodeCount") int nodeCount,
      @Param("kubernetesVersion") String kubernetesVersion,
      @Param("now") Instant now);

  /**
   * Stores the labels the agent reports (kept apart from those set in the hub, {@code labels}).
   * Returns 0 when they are what the cluster had.
   */
  @Update(
      "update clusters set reported_labels = #{labels,typeHandler=dev.gitopshq.activities.store.JsonMapTypeHandler},"
          + " updated_at = now() where org_id = #{orgId} and id = #{id}"
          + " and reported_labels <> #{labels,typeHandler=dev.gitopshq.activities.store.JsonMapTypeHandler}")
  int reportLabels(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("labels") Map<String, String> labels);

  /**
   * Starts or clears the wait for an admin's decision when an agent registers: pending (following
   * the registration token {@code tokenId}) when acceptance is required, otherwise none.
   */
  @Update(
      "update clusters set acceptance = case when #{required} then 'pending' end,"
          + " acceptance_token_id = case when #{required} then #{tokenId}::uuid end,"
          + " acceptance_decided_by = null, acceptance_decided_at = null"
          + " where org_id = #{orgId} and id = #{id}")
  int requireAcceptance(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("required") boolean required,
      @Param("tokenId") UUID tokenId);

  /**
   * Records an admin's decision about a pending cluster, once: {@code decision} is accepted or
   * rejected. Returns the registration token whose workflow waited, or empty when the cluster was
   * not pending (decided already, or another request won).
   */
  @Select(
      "update clusters set acceptance = #{decision}, acceptance_decided_by = #{by},"
          + " acceptance_decided_at = #{now}, updated_at = #{now}"
          + " where org_id = #{orgId} and id = #{id} and acceptance = 'pending'"
          + " returning acceptance_token_id")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<UUID> decideAcceptance(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("decision") String decision,
      @Param("by") String by,
      @Param("now") Instant now);

  /** Whether the cluster waits for an admin's decision (the gateway asks on Hello and sweeps). */
  @Select(
      "select coalesce((select acceptance = 'pending' from clusters"
          + " where org_id = #{orgId} and id = #{id}), false)")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  boolean isPendingAcceptance(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /**
   * What a Hello needs from the row it has just marked connected, in one read: whether the cluster
   * waits for an admin's decision, and whether it has its token rotation schedule.
   */
  @Select(
      "select coalesce(acceptance = 'pending', false) as pending_acceptance, rotation_scheduled"
          + " from clusters where org_id = #{orgId} and id = #{id}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<ClusterHelloState> helloState(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /**
   * Whether the cluster's agent last reported {@code capability} (its token rotation schedule is
   * wanted), and whether the schedule was made (null: unknown).
   */
  @Select(
      "select coalesce(#{capability} = any(capabilities), false) as wanted,"
          + " rotation_scheduled as scheduled"
          + " from clusters where org_id = #{orgId} and id = #{id}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<RotationScheduleState> rotationSchedule(
      @Param("orgId") UUID orgId, @Param("id") UUID id, @Param("capability") String capability);

  /**
   * Records whether the cluster has its token rotation schedule, if the recorded state is still
   * {@code expected} (null: unknown): a replica that called Temporal on an older state loses.
   */
  @Update(
      "update clusters set rotation_scheduled = #{scheduled}"
          + " where org_id = #{orgId} and id = #{id}"
          + " and rotation_scheduled is not distinct from #{expected,jdbcType=BOOLEAN}")
  int recordRotationSchedule(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("expected") Boolean expected,
      @Param("scheduled") boolean scheduled);

  /** Forgets whether the cluster has its token rotation schedule: the next Hello finds out. */
  @Update("update clusters set rotation_scheduled = null where org_id = #{orgId} and id = #{id}")
  int forgetRotationSchedule(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /**
   * Clears the stream holder, but only if this replica still holds it (a reconnect may have moved
   * it).
   */
  @Update(
      "update clusters set connected_replica = null, updated_at = #{now}"
          + " where org_id = #{orgId} and id = #{id} and connected_replica = #{replica}"
          + " and connected_at = #{connectedAt}")
  int markDisconnected(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("replica") String replica,
      @Param("connectedAt") Instant connectedAt,
      @Param("now") Instant now);

  /**
   * Whether the cluster's agent lost its stream since {@code since} and is likely on its way back:
   * PostgreSQL still names a holder ({@code self}, or any replica when {@code forwarding}; the
   * caller found that none serves it) that heard the agent since then (less one heartbeat interval,
   * heartbeats being that far apart), or its last session was closed since then. A cluster gone for
   * longer, or never connected, is not.
   */
  @Select(
      "select exists (select 1 from clusters c where c.org_id = #{orgId} and c.id = #{id} and ("
          + " (c.connected_replica is not null and (c.connected_replica = #{self} or #{forwarding})"
          + " and c.last_seen_at >= #{since}::timestamptz"
          + " - make_interval(secs => c.heartbeat_interval_seconds))"
          + " or (c.connected_replica is null and exists (select 1 from agent_sessions s"
          + " where s.org_id = c.org_id and s.cluster_id = c.id"
          + " and s.disconnected_at >= #{since}))))")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  boolean streamLostSince(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("self") String selfReplica,
      @Param("forwarding") boolean forwarding,
      @Param("since") Instant since);

  /** Deletes a cluster with its tokens, commands and settings (foreign keys cascade). */
  /**
   * The project environments that name the cluster (not those that bind it only by selector), as
   * {@code project/environment}.
   */
  @Select(
      "select p.name || '/' || e.name from project_environment_clusters b"
          + " join projects p on p.org_id = b.org_id and p.id = b.project_id"
          + " join environments e on e.org_id = b.org_id and e.id = b.environment_id"
          + " where b.org_id = #{orgId} and b.cluster_id = #{id} and b.by_name order by 1")
  List<String> deliveryBindings(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Delete("delete from clusters where org_id = #{orgId} and id = #{id}")
  int delete(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /**
   * Records many heartbeats in one statement. Heartbeats are batched by the gateway: one
   * transaction per flush, not one per heartbeat.
   */
  @Update({
    "<script>",
    "update clusters c set last_seen_at = greatest(c.last_seen_at, v.seen),",
    " agent_status = coalesce(v.status, c.agent_status),",
    " heartbeat_rtt_millis = coalesce(v.rtt, c.heartbeat_rtt_millis)",
    "from (values",
    "<foreach collection='beats' item='b' separator=','>",
    "(#{b.orgId}::uuid, #{b.clusterId}::uuid, #{b.seenAt}::timestamptz,",
    " #{b.status}::jsonb, #{b.rttMillis}::integer)",
    "</foreach>",
    ") as v(org_id, id, seen, status, rtt)",
    "where c.org_id = v.org_id and c.id = v.id",
    "</script>"
  })
  int recordHeartbeats(@Param("beats") Collection<Heartbeat> beats);

  /**
   * One agent heartbeat, as batched for {@link #recordHeartbeats}.
   *
   * @param status the agent's status as JSON, or null when the heartbeat carried none
   * @param rttMillis the previous heartbeat's round trip, or null
   */
  record Heartbeat(UUID orgId, UUID clusterId, Instant seenAt, String status, Integer rttMillis) {
    public Heartbeat(UUID orgId, UUID clusterId, Instant seenAt) {
      this(orgId, clusterId, seenAt, null, null);
    }
  }
}
