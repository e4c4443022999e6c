package dev.gitopshq.activities.release;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Delete;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** Direct applies, parked for their agents like commands, and what they placed on clusters. */
@Mapper
public interface DirectApplyMapper {
  String COLUMNS =
      "id, org_id, deployment_id, project_id, environment_id, environment, cluster_id, commit,"
          + " status, error, results::text as results, dispatch_deadline, health_timeout_s,"
          + " dispatched_at, created_at, finished_at,"
          + " (select c.name from clusters c where c.id = direct_applies.cluster_id) as cluster,"
          + " (select p.name from projects p where p.id = direct_applies.project_id) as project";

  /** The direct-mode clusters of the named environments of a project. */
  @Select(
      "<script>select e.id as environment_id, e.name as environment, e.position,"
          + " c.id as cluster_id, c.name as cluster, c.capabilities"
          + " from project_environment_clusters pc"
          + " join environments e on e.org_id = pc.org_id and e.id = pc.environment_id"
          + " join clusters c on c.org_id = pc.org_id and c.id = pc.cluster_id"
          + " where pc.org_id = #{orgId} and pc.project_id = #{projectId}"
          + " and pc.delivery_mode = 'direct' and e.name in"
          + " <foreach item='n' collection='environments' open='(' separator=',' close=')'>#{n}</foreach>"
          + " order by e.position, c.name</script>")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<DirectTargetRow> targets(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("environments") List<String> environments);

  /**
   * Parks an apply (its job is in {@code agent_jobs}): creates it, or (a retried attempt) lets it
   * be sent again.
   */
  @Insert(
      "insert into direct_applies (id, org_id, deployment_id, project_id, environment_id,"
          + " environment, cluster_id, commit, status, dispatch_deadline, health_timeout_s,"
          + " created_at) values (#{id}, #{orgId}, #{deploymentId}, #{projectId},"
          + " #{environmentId}, #{environment}, #{clusterId}, #{commit}, 'queued',"
          + " #{deadline}, #{healthTimeout}, #{now}) on conflict (id) do update set"
          + " dispatch_deadline = excluded.dispatch_deadline, dispatched_at = null,"
          + " status = case when direct_applies.status in ('succeeded', 'failed')"
          + " then direct_applies.status else 'queued' end")
  int park(
      @Param("id") String id,
      @Param("orgId") UUID orgId,
      @Param("deploymentId") UUID deploymentId,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId,
      @Param("environment") String environment,
      @Param("clusterId") UUID clusterId,
      @Param("commit") String commit,
      @Param("deadline") Instant deadline,
      @Param("healthTimeout") int healthTimeoutSeconds,
      @Param("now") Instant now);

  @Select("select " + COLUMNS + " from direct_applies where org_id = #{orgId} and id = #{id}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<DirectApplyRow> find(@Param("orgId") UUID orgId, @Param("id") String id);

  /** A stream carried the apply (again, after a reconnect). */
  @Update(
      "update direct_applies set dispatched_at = #{now}, status = 'sent'"
          + " where org_id = #{orgId} and id = #{id} and status in ('queued', 'sent')")
  int markSent(@Param("orgId") UUID orgId, @Param("id") String id, @Param("now") Instant now);

  @Update(
      "update direct_applies set status = #{status}, error = #{error},"
          + " results = #{results}::jsonb, finished_at = #{now}"
          + " where org_id = #{orgId} and id = #{id}")
  int recordResult(
      @Param("orgId") UUID orgId,
      @Param("id") String id,
      @Param("status") String status,
      @Param("error") String error,
      @Param("results") String resultsJson,
      @Param("now") Instant now);

  /** What earlier applies placed for this cluster and project environment. */
  @Select(
      "select tenant, api_version, kind, namespace, name from direct_applied_objects"
          + " where org_id = #{orgId} and cluster_id = #{clusterId} and project_id = #{projectId}"
          + " and environment_id = #{environmentId} order by tenant, kind, namespace, name")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<DirectAppliedObjectRow> applied(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId);

  @Delete(
      "delete from direct_applied_objects where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and project_id = #{projectId} and environment_id = #{environmentId}")
  int forgetApplied(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId);

  @Insert(
      "insert into direct_applied_objects (org_id, cluster_id, project_id, environment_id, tenant,"
          + " api_version, kind, namespace, name, apply_id, applied_at) values (#{orgId},"
          + " #{clusterId}, #{projectId}, #{environmentId}, #{o.tenant}, #{o.apiVersion}, #{o.kind},"
          + " #{o.namespace}, #{o.name}, #{applyId}, #{now}) on conflict (cluster_id, project_id,"
          + " environment_id, tenant, api_version, kind, namespace, name) do update set"
          + " apply_id = excluded.apply_id, applied_at = excluded.applied_at")
  int rememberApplied(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId,
      @Param("o") DirectAppliedObjectRow object,
      @Param("applyId") String applyId,
      @Param("now") Instant now);

  /** The cluster's latest direct applies, newest first, with per-object counts. */
  @Select(
      "select d.id, d.deployment_id, d.project_id, p.name as project, d.environment, d.commit,"
          + " d.status, d.error, jsonb_array_length(d.results) as objects,"
          + " (select count(*) from jsonb_array_elements(d.results) r"
          + " where r->>'action' = 'applied')::int as applied,"
          + " (select count(*) from jsonb_array_elements(d.results) r"
          + " where r->>'action' = 'pruned')::int as pruned,"
          + " (select count(*) from jsonb_array_elements(d.results) r"
          + " where r->>'action' = 'failed' or r->>'health' in ('failed', 'degraded', 'progressing'))"
          + "::int as failed, d.created_at, d.finished_at"
          + " from direct_applies d join projects p on p.org_id = d.org_id and p.id = d.project_id"
          + " where d.org_id = #{orgId} and d.cluster_id = #{clusterId}"
          + " order by d.created_at desc limit #{limit}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<DirectApplySummaryRow> recent(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId, @Param("limit") int limit);

  /** What direct applies placed on the cluster, by project, environment, tenant and object. */
  @Select(
      "select o.project_id, p.name as project, e.name as environment, o.tenant, o.api_version,"
          + " o.kind, o.namespace, o.name, o.apply_id, o.applied_at"
          + " from direct_applied_objects o"
          + " join projects p on p.org_id = o.org_id and p.id = o.project_id"
          + " join environments e on e.org_id = o.org_id and e.id = o.environment_id"
          + " where o.org_id = #{orgId} and o.cluster_id = #{clusterId}"
          + " order by p.name, e.position, o.tenant, o.kind, o.namespace, o.name limit #{limit}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<DirectClusterObjectRow> clusterObjects(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId, @Param("limit") int limit);
}
