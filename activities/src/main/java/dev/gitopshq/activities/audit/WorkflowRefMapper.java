package dev.gitopshq.activities.audit;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Param;
import org.apache.ibatis.annotations.Select;

/**
 * Which organization a Temporal workflow belongs to, read from the rows that started it: every
 * workflow id names such a row ({@code <command id>}, {@code deployment-<id>}, {@code
 * rollback-<release id>}, {@code delivery-<project id>-r<revision>}, {@code approval-<id>}, {@code
 * registration-<token id>}, {@code token-rotation-<rotation id>}, {@code agent-watch-<cluster
 * id>-<ms>}, {@code token-rotation-scheduled-<cluster id>...}). Each query answers 1 only when that
 * row is the organization's.
 */
@Mapper
public interface WorkflowRefMapper {
  @Select("select count(*) from commands where org_id = #{orgId} and id = #{id}")
  int command(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Select(
      "select count(*) from deployments where org_id = #{orgId} and id = #{id}"
          + " and action <> 'rollback'")
  int deployment(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Select(
      "select count(*) from releases where org_id = #{orgId} and id = #{id} and kind = 'rollback'")
  int rollback(@Param("orgId") UUID orgId, @Param("id") UUID releaseId);

  @Select(
      "select count(*) from generations where org_id = #{orgId} and project_id = #{projectId}"
          + " and revision = #{revision}")
  int generation(
      @Param("orgId") UUID orgId,
      @Param("projectId") UUID projectId,
      @Param("revision") long revision);

  @Select("select count(*) from approvals where org_id = #{orgId} and id = #{id}")
  int approval(@Param("orgId") UUID orgId, @Param("id") String id);

  @Select(
      "select count(*) from cluster_tokens where org_id = #{orgId} and id = #{id}"
          + " and kind = 'registration'")
  int registration(@Param("orgId") UUID orgId, @Param("id") UUID tokenId);

  @Select("select count(*) from cluster_tokens where org_id = #{orgId} and rotation_id = #{id}")
  int rotation(@Param("orgId") UUID orgId, @Param("id") UUID rotationId);

  @Select("select count(*) from clusters where org_id = #{orgId} and id = #{id}")
  int cluster(@Param("orgId") UUID orgId, @Param("id") UUID clusterId);

  /**
   * The organization's workflow ids of one type started in {@code [from, to)}, oldest first, at
   * most {@code limit}.
   *
   * @param type a workflow type this mapper knows (the caller checks it against {@link #TYPES})
   */
  @Select({
    "<script>",
    "<choose>",
    "<when test='type == \"CommandWorkflow\"'>select id::text from commands where org_id ="
        + " #{orgId} and created_at &gt;= #{from} and created_at &lt; #{to} order by created_at,"
        + " id</when>",
    "<when test='type == \"ReleaseWorkflow\"'>select 'deployment-' || id from deployments where"
        + " org_id = #{orgId} and action &lt;&gt; 'rollback' and created_at &gt;= #{from} and"
        + " created_at &lt; #{to} order by created_at, id</when>",
    "<when test='type == \"RollbackWorkflow\"'>select 'rollback-' || release_id from deployments"
        + " where org_id = #{orgId} and action = 'rollback' and created_at &gt;= #{from} and"
        + " created_at &lt; #{to} order by created_at, id</when>",
    "<when test='type == \"DeliveryGenerationWorkflow\"'>select 'delivery-' || project_id || '-r'"
        + " || revision from generations where org_id = #{orgId} and started_at &gt;= #{from} and"
        + " started_at &lt; #{to} order by started_at, id</when>",
    "<when test='type == \"ApprovalWorkflow\"'>select 'approval-' || id from approvals where"
        + " org_id = #{orgId} and created_at &gt;= #{from} and created_at &lt; #{to} order by"
        + " created_at, id</when>",
    "<when test='type == \"RegistrationWorkflow\"'>select 'registration-' || id from"
        + " cluster_tokens where org_id = #{orgId} and kind = 'registration' and created_at &gt;="
        + " #{from} and created_at &lt; #{to} order by created_at, id</when>",
    "<otherwise>select 'token-rotation-' || rotation_id from cluster_tokens where org_id ="
        + " #{orgId} and rotation_id is not null and created_at &gt;= #{from} and created_at &lt;"
        + " #{to} order by created_at, id</otherwise>",
    "</choose>",
    "limit #{limit}",
    "</script>"
  })
  List<String> started(
      @Param("orgId") UUID orgId,
      @Param("type") String type,
      @Param("from") Instant from,
      @Param("to") Instant to,
      @Param("limit") int limit);

  /** The workflow types {@link #started} can list. */
  List<String> TYPES =
      List.of(
          "CommandWorkflow",
          "ReleaseWorkflow",
          "RollbackWorkflow",
          "DeliveryGenerationWorkflow",
          "ApprovalWorkflow",
          "RegistrationWorkflow",
          "TokenRotationWorkflow");
}
