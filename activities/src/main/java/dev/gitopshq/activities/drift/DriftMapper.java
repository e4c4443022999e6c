package dev.gitopshq.activities.drift;

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

/**
 * Drift checks, findings (V27) and the objects a check did not compare (V32). Every statement
 * filters by organization.
 */
@Mapper
public interface DriftMapper {
  String CHECK_COLUMNS =
      "id, org_id, cluster_id, trigger, requested_by, status, requested_at, started_at,"
          + " finished_at, objects, drifted, opened, resolved, unknown, error";
  String FINDING_COLUMNS =
      "id, org_id, cluster_id, project_id, environment, tenant, source_path, api_group,"
          + " api_version, kind, namespace, name, severity, state, differences::text,"
          + " desired_manifest, field_manager, argo_application, method, first_detected_at,"
          + " last_seen_at, resolved_at, last_check_id, resolved_by_check";

  // ---- checks ---------------------------------------------------------------------------------

  @Insert(
      "insert into drift_checks (id, org_id, cluster_id, trigger, requested_by, status,"
          + " requested_at, not_before) values (#{id}, #{orgId}, #{clusterId}, #{trigger},"
          + " #{requestedBy}, 'pending', #{at}, #{notBefore})")
  void insertCheck(
      @Param("id") UUID id,
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("trigger") String trigger,
      @Param("requestedBy") String requestedBy,
      @Param("at") Instant at,
      @Param("notBefore") Instant notBefore);

  @Select(
      "select "
          + CHECK_COLUMNS
          + " from drift_checks where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and id = #{id}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<DriftCheckRow> findCheck(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId, @Param("id") UUID id);

  /** The cluster's newest check, if any. */
  @Select(
      "select "
          + CHECK_COLUMNS
          + " from drift_checks where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " order by requested_at desc, id desc limit 1")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<DriftCheckRow> latestCheck(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);

  /** The cluster's newest finished (completed or failed) check, if any. */
  @Select(
      "select "
          + CHECK_COLUMNS
          + " from drift_checks where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and status in ('completed', 'failed')"
          + " order by finished_at desc, id desc limit 1")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<DriftCheckRow> latestFinishedCheck(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);

  /** Pending checks of one cluster that may run now, oldest first. */
  @Select(
      "select "
          + CHECK_COLUMNS
          + " from drift_checks where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and status = 'pending' and not_before <= #{now} order by requested_at, id")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<DriftCheckRow> pending(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId, @Param("now") Instant now);

  /** The clusters bound to a project environment (a deployment's drift checks go to them). */
  @Select(
      "select pc.cluster_id from project_environment_clusters pc"
          + " where pc.org_id = #{orgId} and pc.project_id = #{projectId}"
          + " and pc.environment_id = #{environmentId}")
  List<UUID> clustersOf(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("environmentId") UUID environmentId);

  /** Claims a pending check for this replica; 0 when another one took it. */
  @Update(
      "update drift_checks set status = 'running', started_at = #{now}"
          + " where org_id = #{orgId} and id = #{id} and status = 'pending'")
  int claim(@Param("orgId") UUID orgId, @Param("id") UUID id, @Param("now") Instant now);

  @Update(
      "update drift_checks set status = #{status}, finished_at = #{now}, objects = #{objects},"
          + " drifted = #{drifted}, opened = #{opened}, resolved = #{resolved},"
          + " unknown = #{unknown}, error = #{error}"
          + " where org_id = #{orgId} and id = #{id}")
  int finishCheck(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("status") String status,
      @Param("now") Instant now,
      @Param("objects") int objects,
      @Param("drifted") int drifted,
      @Param("opened") int opened,
      @Param("resolved") int resolved,
      @Param("unknown") int unknown,
      @Param("error") String error);

  /**
   * Running checks started before {@code before} (their replica died or the agent never answered):
   * back to pending, so the replica that holds the stream now runs them.
   */
  @Update(
      "update drift_checks set status = 'pending', started_at = null"
          + " where status = 'running' and started_at < #{before}")
  int requeueStale(@Param("before") Instant before);

  /** Pending checks, of any organization, due before {@code before} (at most 100). */
  @Select(
      "select "
          + CHECK_COLUMNS
          + " from drift_checks where status = 'pending' and not_before < #{before}"
          + " order by not_before limit 100")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<DriftCheckRow> overdue(@Param("before") Instant before);

  /** A pending or running check of the cluster, so an interval does not pile up requests. */
  @Select(
      "select count(*) > 0 from drift_checks where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and (status in ('pending', 'running') or requested_at > #{since})")
  boolean recentOrUnfinished(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("since") Instant since);

  // ---- desired state --------------------------------------------------------------------------

  @Select(
      "select p.id as project_id, p.name as project, e.name as environment,"
          + " pc.delivery_mode = 'direct' as direct"
          + " from project_environment_clusters pc"
          + " join projects p on p.org_id = pc.org_id and p.id = pc.project_id"
          + " join environments e on e.org_id = pc.org_id and e.id = pc.environment_id"
          + " where pc.org_id = #{orgId} and pc.cluster_id = #{clusterId}"
          + " order by p.name, e.position, e.name")
  List<DriftBindingRow> bindings(@Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);

  // ---- findings -------------------------------------------------------------------------------

  @Insert(
      "insert into drift_findings (id, org_id, cluster_id, project_id, environment, tenant,"
          + " source_path, api_group, api_version, kind, namespace, name, severity, state,"
          + " differences, desired_manifest, field_manager, argo_application, method,"
          + " first_detected_at, last_seen_at, last_check_id) values (#{id}, #{orgId},"
          + " #{clusterId}, #{projectId}, #{environment}, #{tenant}, #{sourcePath}, #{apiGroup},"
          + " #{apiVersion}, #{kind}, #{namespace}, #{name}, #{severity}, #{state},"
          + " cast(#{differences} as jsonb), #{desiredManifest}, #{fieldManager},"
          + " #{argoApplication}, #{method}, #{firstDetectedAt}, #{lastSeenAt}, #{lastCheckId})")
  void insertFinding(DriftFindingRow row);

  /** An open finding seen again: its differences as they are now. */
  @Update(
      "update drift_findings set severity = #{severity}, state = #{state},"
          + " differences = cast(#{differences} as jsonb), desired_manifest = #{desiredManifest},"
          + " field_manager = #{fieldManager}, argo_application = #{argoApplication},"
          + " method = #{method}, source_path = #{sourcePath}, last_seen_at = #{lastSeenAt},"
          + " last_check_id = #{lastCheckId}"
          + " where org_id = #{orgId} and id = #{id} and resolved_at is null")
  int updateFinding(DriftFindingRow row);

  @Update(
      "update drift_findings set resolved_at = #{now}, resolved_by_check = #{checkId}"
          + " where org_id = #{orgId} and id = #{id} and resolved_at is null")
  int resolve(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("checkId") UUID checkId,
      @Param("now") Instant now);

  @Select(
      "select "
          + FINDING_COLUMNS
          + " from drift_findings where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and resolved_at is null")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<DriftFindingRow> open(@Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId);

  @Select(
      "select "
          + FINDING_COLUMNS
          + " from drift_findings where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and id = #{id}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<DriftFindingRow> findFinding(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId, @Param("id") UUID id);

  /** The desired manifest of a finding, for the gateway that sends a resolve-drift command. */
  @Select(
      "select desired_manifest from drift_findings where org_id = #{orgId}"
          + " and cluster_id = #{clusterId} and id = #{id}")
  Optional<String> desiredManifest(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId, @Param("id") UUID id);

  @Select({
    "<script>",
    "select " + FINDING_COLUMNS + " from drift_findings",
    " where org_id = #{orgId} and cluster_id = #{clusterId}",
    "<if test='q.severity != null'> and severity = #{q.severity}</if>",
    "<if test='q.namespace != null'> and namespace = #{q.namespace}</if>",
    "<if test='q.state == \"open\"'> and resolved_at is null</if>",
    "<if test='q.state == \"resolved\"'> and resolved_at is not null</if>",
    "<if test='q.afterDetectedAt != null'>",
    " and (first_detected_at, id) &lt; (#{q.afterDetectedAt}, #{q.afterId})",
    "</if>",
    "order by first_detected_at desc, id desc limit #{q.limit}",
    "</script>"
  })
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<DriftFindingRow> list(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId, @Param("q") DriftQuery q);

  // ---- objects not compared -------------------------------------------------------------------

  @Insert(
      "insert into drift_unknowns (org_id, check_id, cluster_id, project_id, environment,"
          + " tenant, source_path, api_group, api_version, kind, namespace, name, reason) values"
          + " (#{orgId}, #{checkId}, #{clusterId}, #{projectId}, #{environment}, #{tenant},"
          + " #{sourcePath},"
          + " #{apiGroup}, #{apiVersion}, #{kind}, #{namespace}, #{name}, #{reason})")
  void insertUnknown(DriftUnknownRow row);

  /** The objects a check did not compare, by namespace, kind and name. */
  @Select(
      "select org_id, check_id, cluster_id, project_id, environment, tenant, source_path, api_group,"
          + " api_version, kind, namespace, name, reason from drift_unknowns"
          + " where org_id = #{orgId} and cluster_id = #{clusterId} and check_id = #{checkId}"
          + " order by namespace, kind, name, api_group")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<DriftUnknownRow> unknowns(
      @Param("orgId") UUID orgId,
      @Param("clusterId") UUID clusterId,
      @Param("checkId") UUID checkId);

  /** Forgets the objects not compared of all but the cluster's {@code keep} newest checks. */
  @Delete(
      "delete from drift_unknowns where org_id = #{orgId} and cluster_id = #{clusterId}"
          + " and check_id not in (select id from drift_checks where org_id = #{orgId}"
          + " and cluster_id = #{clusterId} and finished_at is not null"
          + " order by finished_at desc, id desc limit #{keep})")
  int pruneUnknowns(
      @Param("orgId") UUID orgId, @Param("clusterId") UUID clusterId, @Param("keep") int keep);
}
