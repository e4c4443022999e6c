package dev.gitopshq.activities.approvalpolicy;

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

/** An organization's approval policies. */
@Mapper
public interface ApprovalPolicyMapper {
  String LIST = "dev.gitopshq.activities.store.StringListTypeHandler";

  String COLUMNS =
      "id, org_id, name, description, require_approval, auto_approve, required_approvers,"
          + " approver_roles, approver_teams, break_glass_allowed, break_glass_roles, clusters,"
          + " selector::text as selector_json, created_by, created_at, updated_by, updated_at";

  @Insert(
      "insert into approval_policies (id, org_id, name, description, require_approval,"
          + " auto_approve, required_approvers, approver_roles, approver_teams,"
          + " break_glass_allowed, break_glass_roles, clusters, selector, created_by, created_at,"
          + " updated_by, updated_at) values (#{id}, #{orgId}, #{name}, #{description},"
          + " #{requireApproval,typeHandler="
          + LIST
          + "}, #{autoApprove,typeHandler="
          + LIST
          + "}, #{requiredApprovers}, #{approverRoles,typeHandler="
          + LIST
          + "}, #{approverTeams,typeHandler="
          + LIST
          + "}, #{breakGlassAllowed}, #{breakGlassRoles,typeHandler="
          + LIST
          + "}, #{clusters,typeHandler="
          + LIST
          + "}, cast(#{selectorJson,jdbcType=VARCHAR} as jsonb), #{createdBy}, #{createdAt},"
          + " #{updatedBy}, #{updatedAt})")
  void insert(ApprovalPolicyRow row);

  /** Replaces the rules and attachments; name, id and creation stay. */
  @Update(
      "update approval_policies set description = #{description},"
          + " require_approval = #{requireApproval,typeHandler="
          + LIST
          + "}, auto_approve = #{autoApprove,typeHandler="
          + LIST
          + "}, required_approvers = #{requiredApprovers}, approver_roles = #{approverRoles,"
          + "typeHandler="
          + LIST
          + "}, approver_teams = #{approverTeams,typeHandler="
          + LIST
          + "}, break_glass_allowed = #{breakGlassAllowed}, break_glass_roles ="
          + " #{breakGlassRoles,typeHandler="
          + LIST
          + "}, clusters = #{clusters,typeHandler="
          + LIST
          + "}, selector = cast(#{selectorJson,jdbcType=VARCHAR} as jsonb),"
          + " updated_by = #{updatedBy}, updated_at = #{updatedAt}"
          + " where org_id = #{orgId} and id = #{id}")
  int update(ApprovalPolicyRow row);

  @Delete("delete from approval_policies where org_id = #{orgId} and id = #{id}")
  int delete(@Param("orgId") UUID orgId, @Param("id") UUID id);

  @Select("select " + COLUMNS + " from approval_policies where org_id = #{orgId} order by name")
  List<ApprovalPolicyRow> list(@Param("orgId") UUID orgId);

  @Select(
      "select " + COLUMNS + " from approval_policies where org_id = #{orgId} and name = #{name}")
  Optional<ApprovalPolicyRow> find(@Param("orgId") UUID orgId, @Param("name") String name);

  /** The policies that name a cluster (normally at most one). */
  @Select(
      "select "
          + COLUMNS
          + " from approval_policies where org_id = #{orgId} and #{cluster} = any(clusters)"
          + " order by name")
  List<ApprovalPolicyRow> naming(@Param("orgId") UUID orgId, @Param("cluster") String cluster);

  /**
   * Serializes the saves of one organization's policies until the transaction ends, so two saves
   * cannot each pass the conflict check against a state without the other.
   */
  @Select("select 1 from pg_advisory_xact_lock(7050, hashtext(#{orgId}::text))")
  @Options(flushCache = Options.FlushCachePolicy.TRUE, useCache = false)
  int lock(@Param("orgId") UUID orgId);
}
