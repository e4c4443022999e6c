package dev.gitopshq.activities.release;

import dev.gitopshq.activities.governance.GovernedStore;
import dev.gitopshq.activities.governance.GovernedTables;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Options;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;
import org.apache.ibatis.annotations.Update;

/** Deployments (deploys, promotions, rollbacks) and their timelines. */
@GovernedTables(
    subjects = "deployments",
    events = "deployment_events",
    subjectColumn = "deployment_id")
@Mapper
public interface DeploymentMapper extends GovernedStore {
  String MAP = "dev.gitopshq.activities.store.JsonMapTypeHandler";
  String UUIDS = "dev.gitopshq.activities.sqltypes.UuidArrayTypeHandler";

  /** The environment names of {@code d}, in the organization's order. */
  String ENV_NAMES =
      "array(select e.name from environments e where e.org_id = d.org_id"
          + " and e.id = any(d.environment_ids) order by e.position, e.name)";

  String COLUMNS =
      "d.id, d.org_id, d.project_id, d.release_id, d.action,"
          + " d.environment_ids::text[] as environment_ids, "
          + ENV_NAMES
          + " as environments,"
          + " d.status, d.status_detail as detail, d.policy_name as policy, d.policy_version,"
          + " d.policy_sha256, d.decision_outcome as outcome, d.break_glass,"
          + " d.justification, d.commits, d.requested_by, d.requester_name, d.created_at,"
          + " d.updated_at, d.finished_at, d.change_summary::text as changes";

  @Insert(
      "insert into deployments (id, org_id, project_id, release_id, action, environment_ids,"
          + " status, break_glass, justification, requested_by, requester_name, created_at,"
          + " updated_at) values (#{id}, #{orgId}, #{projectId}, #{releaseId}, #{action},"
          + " #{environmentIds,typeHandler="
          + UUIDS
          + "}, 'pending', #{breakGlass},"
          + " #{justification}, #{requestedBy}, #{requesterName}, #{now}, #{now})")
  void insert(
      @Param("id") UUID id,
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("releaseId") UUID releaseId,
      @Param("action") String action,
      @Param("environmentIds") List<UUID> environmentIds,
      @Param("breakGlass") boolean breakGlass,
      @Param("justification") String justification,
      @Param("requestedBy") String requestedBy,
      @Param("requesterName") String requesterName,
      @Param("now") Instant now);

  @Select("select " + COLUMNS + " from deployments d where d.org_id = #{orgId} and d.id = #{id}")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  Optional<DeploymentRow> findById(@Param("orgId") UUID orgId, @Param("id") UUID id);

  /** The deployments of a release, oldest first. */
  @Select(
      "select "
          + COLUMNS
          + " from deployments d"
          + " where d.org_id = #{orgId} and d.release_id = #{releaseId} order by d.created_at, d.id")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  List<DeploymentRow> forRelease(@Param("orgId") UUID orgId, @Param("releaseId") UUID releaseId);

  /** Stores the summary of what the deployment changes (JSON, as {@link DeploymentChanges}). */
  @Update(
      "update deployments set change_summary = #{summary}::jsonb, updated_at = #{now}"
          + " where org_id = #{orgId} and id = #{id}")
  int recordChanges(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("summary") String summary,
      @Param("now") Instant now);

  @Update(
      "update deployments set commits = #{commits,typeHandler="
          + MAP
          + "}, updated_at = #{now}"
          + " where org_id = #{orgId} and id = #{id}")
  int recordCommits(
      @Param("orgId") UUID orgId,
      @Param("id") UUID id,
      @Param("commits") Map<String, String> commits,
      @Param("now") Instant now);

  @Select(
      "select seq, at, status, actor, detail from deployment_events"
          + " where org_id = #{orgId} and deployment_id = #{deploymentId} order by seq")
  List<DeploymentEventRow> events(
      @Param("orgId") UUID orgId, @Param("deploymentId") UUID deploymentId);

  /** Whether the requester id is a member (otherwise a service account) of the organization. */
  @Select("select exists (select 1 from members where org_id = #{orgId} and id::text = #{id})")
  boolean isMember(@Param("orgId") UUID orgId, @Param("id") String id);

  /** What the approvals inbox shows of a deployment. */
  @Select(
      "select d.id, d.project_id, p.name as project, r.number as release_number,"
          + " r.kind as release_kind, r.description as release_description,"
          + " o.number as rollback_of_number, d.action, "
          + ENV_NAMES
          + " as environments,"
          + " d.requester_name, d.break_glass, d.justification,"
          + " d.change_summary::text as changes"
          + " from deployments d"
          + " join releases r on r.org_id = d.org_id and r.id = d.release_id"
          + " join projects p on p.org_id = d.org_id and p.id = d.project_id"
          + " left join releases o on o.org_id = r.org_id and o.id = r.rollback_of"
          + " where d.org_id = #{orgId} and d.id = #{id}")
  Optional<DeploymentSubjectRow> subject(@Param("orgId") UUID orgId, @Param("id") UUID id);
}
